/*
 * out_simple.c - the simple output: a binary trace file in QEMU's simpletrace
 * format, version 4 (trace/simple.c, scripts/simpletrace.py).
 *
 * All words are host-endian.  The file starts with a header of three u64:
 * ~0 (header event id), the magic 0xf2b177cb0aa429b4 and the version 4.
 * Then records, each preceded by a u64 type: 0 maps an event id to its name
 * (u64 id, u32 length, name bytes); 1 is an event (u64 id, u64 timestamp in
 * ns of CLOCK_MONOTONIC, u32 record length including these fields, u32 pid,
 * then one u64 per argument, a string being a u32 length and its bytes).
 * Lost events are an event record with id ~0 - 1 and one argument, the
 * count.  An event's mapping is written before its first event record.
 * The file is TJ_SIMPLE_FILE, default trace-<pid>, mode 0600; the writer
 * thread writes it through stdio.  QEMU writes every mapping when it opens
 * the file, we write each before its event's first record: simpletrace.py
 * reads both (checked by hand with QEMU's scripts/simpletrace.py on the
 * output of tests/lib-emit, arguments typed by tests/simpletrace/
 * tgroup.trace-events).  QEMU cuts strings at 512 bytes; we do not.
 *
 * A fork child writes a file of its own, with its own header and mappings:
 * trace-<its pid>, or TJ_SIMPLE_FILE.<its pid>.  It drops, unwritten, what
 * it inherited in the stream's buffer (the parent writes that), and opens
 * its file at its first record.  Writing on in the parent's file put the
 * child's copy of that buffer, header and all, in the middle of it.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

#define SIMPLE_HEADER_ID      UINT64_MAX
#define SIMPLE_DROPPED_ID     (UINT64_MAX - 1)
#define SIMPLE_MAGIC          0xf2b177cb0aa429b4ull
#define SIMPLE_VERSION        4
#define SIMPLE_TYPE_MAPPING   0
#define SIMPLE_TYPE_EVENT     1

static FILE *simple_fp;
static uint8_t *simple_mapped;          /* by event id: its mapping is written */
static size_t simple_nmapped;
static bool simple_forked;              /* a fork child: its own file, at its first record */
static pthread_once_t simple_once = PTHREAD_ONCE_INIT;

static void simple_forget(void)
{
        free(simple_mapped);
        simple_mapped = NULL;
        simple_nmapped = 0;
}

/* In a fork child (one thread: stdio's locks were reset by fork()). */
static void simple_fork_child(void)
{
        if (!simple_fp)
                return;
        __fpurge(simple_fp);    /* the parent's bytes, which the parent writes */
        fclose(simple_fp);
        simple_fp = NULL;
        simple_forget();
        simple_forked = true;
}

static void simple_init_once(void)
{
        pthread_atfork(NULL, NULL, simple_fork_child);
}

static void simple_u64(uint64_t x)
{
        fwrite(&x, sizeof(x), 1, simple_fp);
}

static void simple_u32(uint32_t x)
{
        fwrite(&x, sizeof(x), 1, simple_fp);
}

static int simple_open(void)
{
        const char *path = getenv("TJ_SIMPLE_FILE");
        char def[64], *own = NULL;
        int fd, ret = 0;

        pthread_once(&simple_once, simple_init_once);
        if (!path || !path[0]) {
                snprintf(def, sizeof(def), "trace-%d", (int)getpid());
                path = def;
        } else if (simple_forked) {
                if (asprintf(&own, "%s.%d", path, (int)getpid()) < 0)
                        return -ENOMEM;
                path = own;
        }
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd < 0) {
                ret = -errno;
                config_warn("simple: %s: %s", path, strerror(errno));
                goto out;
        }
        simple_fp = fdopen(fd, "w");
        if (!simple_fp) {
                ret = -errno;
                close(fd);
                goto out;
        }
        simple_u64(SIMPLE_HEADER_ID);
        simple_u64(SIMPLE_MAGIC);
        simple_u64(SIMPLE_VERSION);
out:
        free(own);
        return ret;
}

/* The file is open: in a fork child, its own is opened now. */
static int simple_ready(void)
{
        if (!simple_fp && simple_forked && simple_open() < 0)
                simple_forked = false;  /* said once: the output gives up */
        return simple_fp ? 0 : -EBADF;
}

static int simple_map(const struct tj_event *ev)
{
        size_t len = strlen(ev->name), n;
        uint8_t *p;
        int ret = 0;

        if (ev->id >= simple_nmapped) {
                n = ev->id + 64;
                p = realloc(simple_mapped, n);
                if (!p) {
                        ret = -ENOMEM;
                        goto out;
                }
                memset(p + simple_nmapped, 0, n - simple_nmapped);
                simple_mapped = p;
                simple_nmapped = n;
        }
        if (simple_mapped[ev->id])
                goto out;
        simple_u64(SIMPLE_TYPE_MAPPING);
        simple_u64(ev->id);
        simple_u32((uint32_t)len);
        fwrite(ev->name, 1, len, simple_fp);
        simple_mapped[ev->id] = 1;
out:
        return ret;
}

static int simple_write(const struct record *r, const tj_value *v, const char *msg)
{
        const struct tj_event *ev = r->ev;
        uint32_t size = 8 + 8 + 4 + 4;
        int ret;

        (void)msg;
        ret = simple_ready();
        if (ret < 0)
                return ret;
        ret = simple_map(ev);
        if (ret < 0)
                goto out;
        for (unsigned i = 0; i < ev->nargs; i++)
                if (ev->args[i].kind == TJ_ARG_STRING)
                        size += 4 + (uint32_t)(v[i].s ? strlen(v[i].s) : 0);
                else
                        size += 8;
        simple_u64(SIMPLE_TYPE_EVENT);
        simple_u64(ev->id);
        simple_u64((uint64_t)r->mono_ns);
        simple_u32(size);
        simple_u32((uint32_t)getpid());
        for (unsigned i = 0; i < ev->nargs; i++) {
                if (ev->args[i].kind == TJ_ARG_STRING) {
                        uint32_t len = (uint32_t)(v[i].s ? strlen(v[i].s) : 0);

                        simple_u32(len);
                        if (len)
                                fwrite(v[i].s, 1, len, simple_fp);
                } else {
                        simple_u64(v[i].u);
                }
        }
        ret = ferror(simple_fp) ? -EIO : 0;
out:
        return ret;
}

static int simple_report_dropped(uint64_t n, int64_t realtime_ns, int64_t mono_ns)
{
        (void)realtime_ns;
        if (simple_ready() < 0)
                return -EBADF;
        simple_u64(SIMPLE_TYPE_EVENT);
        simple_u64(SIMPLE_DROPPED_ID);
        simple_u64((uint64_t)mono_ns);
        simple_u32(8 + 8 + 4 + 4 + 8);
        simple_u32((uint32_t)getpid());
        simple_u64(n);
        return ferror(simple_fp) ? -EIO : 0;
}

static void simple_flush(void)
{
        if (simple_fp)
                fflush(simple_fp);
}

static void simple_close(void)
{
        if (simple_fp)
                fclose(simple_fp);
        simple_fp = NULL;
        simple_forget();
        simple_forked = false;
}

TJ_HIDDEN const struct tj_output out_simple = {
        .name = "simple",
        .open = simple_open,
        .write = simple_write,
        .report_dropped = simple_report_dropped,
        .flush = simple_flush,
        .close = simple_close,
};
