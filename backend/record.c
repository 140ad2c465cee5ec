/*
 * record.c - the compact record every event becomes.
 *
 * tj_emit() copies an event's arguments into a record so that the caller's
 * strings may die as soon as trace_<event>() returns: a fixed header, one
 * 8-byte slot per argument, then the string bytes copied by value.  A record
 * is at most RECORD_MAX bytes; strings that do not fit are cut short (and the
 * record flagged), so one huge argument can never take the whole ring.  The
 * writer (or the caller, synchronously) turns a record back into tj_value[]
 * for the event's render function and the outputs.
 */
#include <string.h>

#include "internal.h"

static size_t record_align(size_t n)
{
        return (n + RECORD_ALIGN - 1) & ~(size_t)(RECORD_ALIGN - 1);
}

static size_t record_fixed(const struct tj_event *ev)
{
        return sizeof(struct record) + (size_t)ev->nargs * sizeof(uint64_t);
}

/*
 * Bytes the record of EV with values V takes, at most RECORD_MAX.  The
 * length of each string argument goes to RET_LENS[i] for record_encode().
 */
size_t record_size(const struct tj_event *ev, const tj_value *v, size_t *ret_lens)
{
        size_t n = record_fixed(ev);

        for (unsigned i = 0; i < ev->nargs; i++)
                if (ev->args[i].kind == TJ_ARG_STRING && v[i].s) {
                        ret_lens[i] = strlen(v[i].s);
                        n += ret_lens[i] + 1;
                }
        n = record_align(n);
        return n > RECORD_MAX ? RECORD_MAX : n;
}

/*
 * Fill R (SIZE bytes, from record_size(), which gave LENS) with EV's values.
 * The header's seq/time/tid fields are left to the caller.
 */
void record_encode(struct record *r, size_t size, const struct tj_event *ev,
                   const struct tj_site *site, const tj_value *v, const size_t *lens)
{
        size_t off = record_fixed(ev);

        r->size = (uint32_t)size;
        r->kind = RECORD_EVENT;
        r->ev = ev;
        r->site = site;
        r->flags = 0;
        for (unsigned i = 0; i < ev->nargs; i++) {
                size_t len, room;

                switch (ev->args[i].kind) {
                case TJ_ARG_STRING:
                        if (!v[i].s) {
                                r->slot[i] = RECORD_STR_NULL;
                                break;
                        }
                        if (off >= size) {
                                /* A string before filled the record: point
                                 * at its NUL, the last byte, as "". */
                                r->slot[i] = (uint64_t)(size - 1) << 32;
                                r->flags |= RECORD_TRUNCATED;
                                break;
                        }
                        len = lens[i];
                        room = size - off - 1;
                        if (len > room) {
                                len = room;
                                r->flags |= RECORD_TRUNCATED;
                        }
                        memcpy((char *)r + off, v[i].s, len);
                        ((char *)r)[off + len] = '\0';
                        r->slot[i] = (uint64_t)off << 32 | len;
                        off += len + 1;
                        break;
                case TJ_ARG_POINTER:
                        r->slot[i] = (uint64_t)(uintptr_t)v[i].p;
                        break;
                default:
                        r->slot[i] = v[i].u;
                        break;
                }
        }
}

/* Turn R's slots back into values; strings point into R. */
void record_values(const struct record *r, tj_value *ret_v)
{
        const struct tj_event *ev = r->ev;

        for (unsigned i = 0; i < ev->nargs; i++) {
                uint64_t s = r->slot[i];

                switch (ev->args[i].kind) {
                case TJ_ARG_STRING:
                        ret_v[i].s = s == RECORD_STR_NULL ? NULL :
                                (const char *)r + (s >> 32);
                        break;
                case TJ_ARG_POINTER:
                        ret_v[i].p = (const void *)(uintptr_t)s;
                        break;
                default:
                        ret_v[i].u = s;
                        break;
                }
        }
}

/*
 * Write "<event> <rendered format>" into BUF like snprintf: returns the length
 * the whole message needs (which may exceed SIZE - 1), or -1 when the render
 * function fails.
 */
int record_message(const struct record *r, const tj_value *v, char *buf, size_t size)
{
        size_t nl = strlen(r->ev->name);
        int n;

        if (size > 0) {
                size_t k = nl < size - 1 ? nl : size - 1;

                memcpy(buf, r->ev->name, k);
                buf[k] = '\0';
                if (k + 1 < size) {
                        buf[k] = ' ';
                        buf[k + 1] = '\0';
                }
        }
        if (!r->ev->render)
                return (int)nl + 1;
        if (nl + 1 < size)
                n = r->ev->render(buf + nl + 1, size - nl - 1, v);
        else {
                char dummy[1];

                n = r->ev->render(dummy, sizeof(dummy), v);
        }
        if (n < 0)
                return -1;
        return (int)nl + 1 + n;
}
