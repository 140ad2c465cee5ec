/*
 * import_simpletrace.c - trace events from a QEMU simpletrace file (format
 * version 4), as QEMU's simple backend and libtracejournal's simple output
 * write it and QEMU's scripts/simpletrace.py reads it.
 *
 * Layout, every word host-endian: a header of three u64 (~0, the magic
 * 0xf2b177cb0aa429b4, the version 4), then records, each a u64 type and:
 *
 *   type 0, mapping   u64 event id, u32 name length, the name
 *   type 1, event     u64 event id, u64 timestamp (ns), u32 length of the
 *                     record from the id on, u32 pid, then per argument a
 *                     u64, or for a string a u32 length and its bytes
 *
 * An event record with id ~0 - 1 counts dropped events (one u64).  The file
 * says nothing of the arguments: as simpletrace.py does, they are read by the
 * event's declaration in the trace-events files (--events), strings being
 * the types QEMU records as strings (te_catalog_is_string()).  Each event
 * becomes a row with its typed arguments, the pid, the timestamp as `mono`
 * (QEMU's and our clock is CLOCK_MONOTONIC) and a `seq` counting the events
 * of the file from 1, dropped ones included.
 *
 * Any inconsistency fails with "FILE:OFFSET: why", OFFSET the byte where the
 * record (or header) starts, and nothing is imported.  A file being written
 * (QEMU's writeout thread and the library's simple output write through
 * stdio buffers) often ends inside a record: when what there is of the
 * record is a valid start of one (a prefix of the header, a known event
 * whose arguments, so far, agree with the record's length, ...) it is cut
 * short, not malformed, and left for the next import (-ENODATA inside);
 * standard input is read once, and such a record is an error there.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "traceql.h"
#include "tracegen/te.h"

#define SIMPLE_HEADER_ID        UINT64_MAX
#define SIMPLE_DROPPED_ID       (UINT64_MAX - 1)
#define SIMPLE_MAGIC            0xf2b177cb0aa429b4ull
#define SIMPLE_VERSION          4
#define SIMPLE_TYPE_MAPPING     0
#define SIMPLE_TYPE_EVENT       1
#define SIMPLE_RECORD_HEADER    24      /* id, timestamp, length, pid */
#define SIMPLE_MAX_NAME         1024

/* Event id to name, from the mapping records. */
struct simple_map {
        uint64_t id;
        const struct te_event *ev;      /* NULL when not in the catalog */
        unsigned strings;               /* bit I: its argument I is a string
                                         * (te_catalog_is_string()) */
        char *name;
};

struct simple {
        const struct te_catalog *cat;
        const char *name;               /* the file, for messages */
        const uint8_t *data;
        size_t size;
        struct simple_map *maps;
        size_t nmaps, maps_size;
        struct ingest_entry e;
        uint64_t seq;                   /* events so far, dropped ones included
                                         * (TRACE_SEQ is unsigned: stored as
                                         * its 64-bit pattern past INT64_MAX) */
};

static uint64_t simple_u64(const uint8_t *p)
{
        uint64_t x;

        memcpy(&x, p, sizeof(x));
        return x;
}

static uint32_t simple_u32(const uint8_t *p)
{
        uint32_t x;

        memcpy(&x, p, sizeof(x));
        return x;
}

static int simple_error(const struct simple *s, size_t off, struct tq_error *err,
                        const char *what)
{
        return tq_error_set(err, -EBADMSG, "%s:%zu: %s", s->name, off, what);
}

/* The record at OFF runs past the end of the file, and the part there is
 * valid: -ENODATA, with the error for an input read once. */
static int simple_cut(const struct simple *s, size_t off, struct tq_error *err,
                      const char *what)
{
        return tq_error_set(err, -ENODATA, "%s:%zu: %s", s->name, off, what);
}

static struct simple_map *simple_find(struct simple *s, uint64_t id)
{
        size_t i;

        for (i = 0; i < s->nmaps; i++)
                if (s->maps[i].id == id)
                        return &s->maps[i];
        return NULL;
}

/* Are the N bytes at P (the start of a name, N may be 0) word characters,
 * as QEMU's \w+ takes an event name (it may begin with a digit)? */
static bool simple_valid_name(const uint8_t *p, uint32_t n)
{
        uint32_t i;

        for (i = 0; i < n; i++)
                if (!((p[i] >= 'a' && p[i] <= 'z') || (p[i] >= 'A' && p[i] <= 'Z') ||
                      (p[i] >= '0' && p[i] <= '9') || p[i] == '_'))
                        return false;
        return true;
}

/* A mapping record at OFF (after its type word); *ret_next past it. */
static int simple_mapping(struct simple *s, size_t off, size_t *ret_next, struct tq_error *err)
{
        size_t rec = off - 8, left = s->size - off;
        struct simple_map *m;
        uint64_t id;
        uint32_t n, have;
        bool added = false;

        if (left < 8)
                return simple_cut(s, rec, err, "truncated event mapping");
        id = simple_u64(s->data + off);
        if (id >= SIMPLE_DROPPED_ID)
                return tq_error_set(err, -EBADMSG, "%s:%zu: mapping of a reserved event id "
                                    "(0x%" PRIx64 ")", s->name, rec, id);
        if (left < 12)
                return simple_cut(s, rec, err, "truncated event mapping");
        n = simple_u32(s->data + off + 8);
        if (n > SIMPLE_MAX_NAME)
                return simple_error(s, rec, err, "event name in mapping longer than 1024 bytes");
        have = left - 12 < n ? (uint32_t) (left - 12) : n;
        if (n == 0 || !simple_valid_name(s->data + off + 12, have))
                return simple_error(s, rec, err, "invalid event name in mapping");
        if (have < n)
                return simple_cut(s, rec, err, "truncated event mapping");
        m = simple_find(s, id);
        if (!m) {
                if (s->nmaps == s->maps_size) {
                        size_t size = s->maps_size ? s->maps_size * 2 : 64;
                        struct simple_map *p = realloc(s->maps, size * sizeof(*p));

                        if (!p)
                                return tq_error_set(err, -ENOMEM, "out of memory");
                        s->maps = p;
                        s->maps_size = size;
                }
                m = &s->maps[s->nmaps++];
                m->id = id;
                added = true;
        } else
                free(m->name);
        m->name = strndup((const char *) s->data + off + 12, n);
        if (!m->name) {
                /* a remapped id keeps its slot, its name NULL: the last
                 * mapping is not the one that failed */
                if (added)
                        s->nmaps--;
                return tq_error_set(err, -ENOMEM, "out of memory");
        }
        m->ev = te_catalog_find(s->cat, m->name, n);
        m->strings = 0;
        for (unsigned i = 0; m->ev && i < m->ev->nargs && i < TE_MAX_ARGS; i++)
                if (te_catalog_is_string(&m->ev->args[i]))
                        m->strings |= 1u << i;
        *ret_next = off + 12 + n;
        return 0;
}

/* Can the arguments of M's event from the I-th on fill LEFT bytes: their
 * fixed part (a number's 8 bytes, a string's length word) at least, and
 * exactly when none of them is a string? */
static bool simple_args_fit(const struct simple_map *m, unsigned i, size_t left)
{
        size_t need = 0;
        bool strings = false;

        for (; i < m->ev->nargs; i++) {
                bool str = m->strings >> i & 1;

                strings |= str;
                need += str ? 4 : 8;
        }
        return strings ? left >= need : left == need;
}

/*
 * Read the arguments of M's event from the LEN bytes they have in their
 * record into V, HAVE (up to LEN) of them at P in the file.  -EBADMSG when
 * they do not fill the LEN bytes exactly, -ENODATA when they agree with LEN
 * as far as the HAVE bytes go but need more.
 */
static int simple_args(const struct simple_map *m, const uint8_t *p, size_t len, size_t have,
                       struct tq_value *v)
{
        const struct te_event *ev = m->ev;
        size_t o = 0;
        unsigned i;

        /* checked again only after a string: a number takes 8 bytes of LEN
         * and 8 of what the rest needs */
        if (!simple_args_fit(m, 0, len))
                return -EBADMSG;
        for (i = 0; i < ev->nargs; i++) {
                memset(&v[i], 0, sizeof(v[i]));
                if (m->strings >> i & 1) {
                        uint32_t n;

                        if (have - o < 4)
                                return -ENODATA;
                        n = simple_u32(p + o);
                        if (len - o - 4 < n || !simple_args_fit(m, i + 1, len - o - 4 - n))
                                return -EBADMSG;
                        if (have - o - 4 < n)
                                return -ENODATA;
                        v[i].str = (const char *) p + o + 4;
                        v[i].len = n;
                        o += 4 + n;
                } else {
                        if (have - o < 8)
                                return -ENODATA;
                        v[i].u = simple_u64(p + o);
                        o += 8;
                }
        }
        return o == len ? 0 : -EBADMSG;
}

/* An event record at OFF (after its type word); *ret_next past it. */
static int simple_event(struct simple *s, struct ingest *ing, size_t off, bool store,
                        size_t *ret_next, struct tq_error *err)
{
        struct tq_value v[TE_MAX_ARGS];
        size_t rec = off - 8, left = s->size - off, have;
        struct simple_map *m = NULL;
        uint64_t id, ts, n;
        uint32_t len, pid;
        char what[SIMPLE_MAX_NAME + 128];
        int r;

        if (left < 8)
                return simple_cut(s, rec, err, "truncated event record");
        id = simple_u64(s->data + off);
        if (id != SIMPLE_DROPPED_ID) {
                m = simple_find(s, id);
                if (!m) {
                        snprintf(what, sizeof(what), "event id %" PRIu64 " has no mapping", id);
                        return simple_error(s, rec, err, what);
                }
                if (!m->ev) {
                        snprintf(what, sizeof(what), "event '%s' is not declared in the "
                                 "trace-events files (--events)", m->name);
                        return simple_error(s, rec, err, what);
                }
        }
        if (left < 20)
                return simple_cut(s, rec, err, "truncated event record");
        len = simple_u32(s->data + off + 16);
        if (len < SIMPLE_RECORD_HEADER) {
                snprintf(what, sizeof(what), "event record length %" PRIu32 " is less than its "
                         "header's %d bytes", len, SIMPLE_RECORD_HEADER);
                return simple_error(s, rec, err, what);
        }
        if (id == SIMPLE_DROPPED_ID && len != SIMPLE_RECORD_HEADER + 8)
                return simple_error(s, rec, err, "dropped-events record of a wrong length");
        if (left < SIMPLE_RECORD_HEADER)
                return simple_cut(s, rec, err, "truncated event record");
        ts = simple_u64(s->data + off + 8);
        if (ts > INT64_MAX) {
                /* QEMU's get_clock() and our clock_gettime() give an int64_t:
                 * this is no time, and would be stored as a negative mono */
                snprintf(what, sizeof(what), "event timestamp %" PRIu64 " is past 2^63-1 "
                         "nanoseconds", ts);
                return simple_error(s, rec, err, what);
        }
        pid = simple_u32(s->data + off + 20);
        have = left < len ? left : len;
        if (m) {
                r = simple_args(m, s->data + off + SIMPLE_RECORD_HEADER,
                                len - SIMPLE_RECORD_HEADER, have - SIMPLE_RECORD_HEADER, v);
                if (r == -EBADMSG) {
                        snprintf(what, sizeof(what), "record length %" PRIu32 " does not match "
                                 "the arguments of '%s'", len, m->name);
                        return simple_error(s, rec, err, what);
                }
        } else
                r = have < len ? -ENODATA : 0;
        if (r < 0)
                return simple_cut(s, rec, err, "truncated event record");
        /* the events the record counts: a count that wrapped would give the
         * next events the numbers of earlier ones (a dropped-events count of
         * 2^64-1 takes the sequence back by one) */
        n = m ? 1 : simple_u64(s->data + off + SIMPLE_RECORD_HEADER);
        if (n > UINT64_MAX - s->seq && m)
                return simple_error(s, rec, err, "event past the 2^64-1st of the file "
                                    "(dropped-events counts included)");
        if (n > UINT64_MAX - s->seq) {
                snprintf(what, sizeof(what), "dropped-events count %" PRIu64 " takes the "
                         "events' count past 2^64-1", n);
                return simple_error(s, rec, err, what);
        }
        *ret_next = off + len;
        ingest_entry_reset(&s->e);
        s->seq += n;
        if (!m) {
                char msg[64];

                if (!store)
                        return 0;
                snprintf(msg, sizeof(msg), "%" PRIu64, n);
                r = te_catalog_field(&s->e, "TRACE_EVENT", "tj_dropped", 10);
                if (r == 0)
                        r = te_catalog_field(&s->e, "TRACE_DROPPED", msg, strlen(msg));
                snprintf(msg, sizeof(msg), "tj_dropped %" PRIu64 " events dropped", n);
                if (r == 0)
                        r = te_catalog_field(&s->e, "MESSAGE", msg, strlen(msg));
        } else {
                if (!store)
                        return 0;
                r = te_catalog_entry(&s->e, m->ev, v);
                if (r == 0)
                        r = te_catalog_field_int(&s->e, "TRACE_SEQ", (int64_t) s->seq);
        }
        if (r == 0)
                r = te_catalog_field_int(&s->e, "_PID", pid);
        if (r == 0)
                r = te_catalog_field_int(&s->e, "TRACE_MONO_NS", (int64_t) ts);
        if (r < 0)
                return tq_error_set(err, r, "out of memory");
        r = ingest_entry(ing, &s->e, err);
        return r < 0 ? r : 0;
}

static int simple_header(const struct simple *s, struct tq_error *err)
{
        static const uint64_t head[3] = { SIMPLE_HEADER_ID, SIMPLE_MAGIC, SIMPLE_VERSION };
        char what[96];
        uint64_t version;

        if (s->size < sizeof(head) && memcmp(s->data, head, s->size) == 0)
                return simple_cut(s, 0, err, "not a simpletrace file (no header)");
        if (s->size < sizeof(head) || simple_u64(s->data) != SIMPLE_HEADER_ID ||
            simple_u64(s->data + 8) != SIMPLE_MAGIC)
                return simple_error(s, 0, err, "not a simpletrace file (no header)");
        version = simple_u64(s->data + 16);
        if (version != SIMPLE_VERSION) {
                snprintf(what, sizeof(what), "simpletrace version %" PRIu64 " is not supported "
                         "(only 4)", version);
                return simple_error(s, 0, err, what);
        }
        return 0;
}

/* A record's type word, cut short to its first N bytes (under 8): can it be
 * one of the two types? */
static bool simple_type_start(const uint8_t *p, size_t n)
{
        static const uint64_t types[2] = { SIMPLE_TYPE_MAPPING, SIMPLE_TYPE_EVENT };

        return memcmp(p, &types[0], n) == 0 || memcmp(p, &types[1], n) == 0;
}

int import_simpletrace_parse(struct ingest *ing, const void *cat, const char *name,
                             const uint8_t *data, size_t size, int64_t skip, size_t *ret_used,
                             struct tq_error *err)
{
        struct simple s = { .cat = cat, .name = name, .data = data, .size = size };
        size_t off = 24, rec = 0, i;
        char what[64];
        int r;

        r = simple_header(&s, err);
        while (r == 0 && off < size) {
                uint64_t type;

                rec = off;
                if (size - off < 8) {
                        if (simple_type_start(data + off, size - off))
                                r = simple_cut(&s, rec, err, "truncated record");
                        else
                                r = simple_error(&s, rec, err, "unknown record type (cut short)");
                        break;
                }
                type = simple_u64(data + off);
                off += 8;
                if (type == SIMPLE_TYPE_MAPPING)
                        r = simple_mapping(&s, off, &off, err);
                else if (type == SIMPLE_TYPE_EVENT)
                        r = simple_event(&s, ing, off, (int64_t) rec >= skip, &off, err);
                else {
                        snprintf(what, sizeof(what), "unknown record type %" PRIu64, type);
                        r = simple_error(&s, rec, err, what);
                }
                tq_progress(off, ing);
        }
        if (r == -ENODATA && ret_used) {
                *ret_used = rec;        /* where the record cut short starts */
                r = 0;
        }
        for (i = 0; i < s.nmaps; i++)
                free(s.maps[i].name);
        free(s.maps);
        ingest_entry_free(&s.e);
        return r;
}

int import_simpletrace(sqlite3 *db, const char *path, const struct te_catalog *cat,
                       uint64_t *ret_added, struct tq_error *err)
{
        return import_file(db, "simpletrace", path, 0, import_simpletrace_parse, cat, ret_added, err);
}
