/*
 * registry.c - the groups of events and their enabled state.
 *
 * Generated code registers each group from a constructor, before main(); the
 * registry numbers the events in registration order and keeps the groups in a
 * list.  Enabling an event means setting its dstate, the variable the
 * generated guard tests, so a disabled trace point costs one load and one
 * branch.  Patterns are names or globs with '*' and '?' (case-sensitive); a
 * leading '-' disables.  Problems found at registration (a duplicate event
 * name, a group built for another ABI) cannot be printed then; they are kept
 * and reported by tj_init() as warnings.  A module unloaded with dlclose()
 * unregisters its groups from the generated destructor.  Every pattern
 * applied is also kept, in order, so that a group registered later (a module
 * loaded with dlopen() after TJ_EVENTS was read) gets the state the patterns
 * give its events, as if it had been there all along.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define REGISTRY_MAX_PROBLEMS 16
/* the longest line of an events file: a pattern, a comment */
#define REGISTRY_LINE_MAX 4096

/* A pattern applied, kept for the groups registered later. */
struct registry_pattern {
        struct registry_pattern *next;
        bool on;                        /* enable, or ('-') disable */
        char glob[];
};

static struct {
        pthread_mutex_t lock;
        struct tj_group *groups;        /* in registration order */
        struct tj_group **tail;
        uint32_t nevents;
        char problems[REGISTRY_MAX_PROBLEMS][256];
        unsigned nproblems;
        atomic_uint walkers;            /* tj_event_foreach() calls walking the list */
        struct registry_pattern *patterns;      /* every pattern applied, oldest first */
} reg = {
        .lock = PTHREAD_MUTEX_INITIALIZER,
        .tail = &reg.groups,
};

static void registry_problem(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void registry_problem(const char *fmt, ...)
{
        va_list ap;

        if (reg.nproblems == REGISTRY_MAX_PROBLEMS)
                return;
        va_start(ap, fmt);
        vsnprintf(reg.problems[reg.nproblems++], sizeof(reg.problems[0]), fmt, ap);
        va_end(ap);
}

/* The tj_event_foreach() calls of this thread under way: in a fork child,
 * the only walks left are the forking thread's. */
static __thread unsigned registry_walking __attribute__((tls_model("initial-exec")));

/*
 * A fork child may inherit the lock held by a thread it does not have, and
 * the walks of threads it does not have: counted still, they never ended,
 * and tj_group_unregister() (a tracegen group's destructor at the child's
 * exit, a dlclose()) waited for them for ever, as when the control
 * endpoint's thread was listing the events at the fork.
 */
static void registry_fork_child(void)
{
        pthread_mutex_init(&reg.lock, NULL);
        atomic_store(&reg.walkers, registry_walking);
}

__attribute__((constructor)) static void registry_init_fork(void)
{
        pthread_atfork(NULL, NULL, registry_fork_child);
}

/* Glob match: '*' any run, '?' any one character, everything else literal. */
bool registry_glob(const char *pattern, const char *name)
{
        const char *star = NULL, *resume = NULL;

        while (*name) {
                if (*pattern == '*') {
                        star = pattern++;
                        resume = name;
                } else if (*pattern == '?' || *pattern == *name) {
                        pattern++;
                        name++;
                } else if (star) {
                        pattern = star + 1;
                        name = ++resume;
                } else
                        return false;
        }
        while (*pattern == '*')
                pattern++;
        return *pattern == '\0';
}

static const struct tj_event *registry_find_locked(const char *name)
{
        for (const struct tj_group *g = reg.groups; g; g = g->next)
                for (size_t i = 0; i < g->nevents; i++)
                        if (strcmp(g->events[i]->name, name) == 0)
                                return g->events[i];
        return NULL;
}

/* Give EV, just registered, the state the patterns applied so far set. */
static void registry_replay_locked(struct tj_event *ev)
{
        for (const struct registry_pattern *rp = reg.patterns; rp; rp = rp->next)
                if (ev->dstate && ev->compiled_in && registry_glob(rp->glob, ev->name))
                        __atomic_store_n(ev->dstate, rp->on ? 1 : 0, __ATOMIC_RELAXED);
}

/*
 * Keep the pattern GLOB for the groups registered later.  An earlier entry
 * with the same glob is superseded by it, and '*' supersedes them all, so
 * that the list grows only with distinct patterns.  Returns 0 or -ENOMEM.
 */
static int registry_remember_locked(const char *glob, bool on)
{
        struct registry_pattern **pp = &reg.patterns, *rp;
        size_t len = strlen(glob);

        while ((rp = *pp)) {
                if (strcmp(glob, "*") == 0 || strcmp(rp->glob, glob) == 0) {
                        *pp = rp->next;
                        free(rp);
                } else
                        pp = &rp->next;
        }
        rp = malloc(sizeof(*rp) + len + 1);
        if (!rp)
                return -ENOMEM;
        rp->next = NULL;
        rp->on = on;
        memcpy(rp->glob, glob, len + 1);
        *pp = rp;
        return 0;
}

void tj_group_register(struct tj_group *group)
{
        if (!group || !group->name || (group->nevents && !group->events))
                return;
        pthread_mutex_lock(&reg.lock);
        if (group->abi != TJ_ABI_VERSION) {
                registry_problem("group '%s' built for ABI %u, library has %u; ignored",
                                 group->name, group->abi, TJ_ABI_VERSION);
                goto out;
        }
        for (struct tj_group *g = reg.groups; g; g = g->next)
                if (g == group)
                        goto out;       /* registered twice: harmless */
        for (size_t i = 0; i < group->nevents; i++) {
                struct tj_event *ev = group->events[i];
                const struct tj_event *other = registry_find_locked(ev->name);

                if (other)
                        registry_problem("event '%s' defined in groups '%s' and '%s'",
                                         ev->name, other->group->name, group->name);
                ev->group = group;
                ev->id = reg.nevents++;
                registry_replay_locked(ev);
        }
        group->next = NULL;
        /* published with release: tj_event_foreach() walks the links without
         * the lock, and must see the group whole once it sees it at all */
        __atomic_store_n(reg.tail, group, __ATOMIC_RELEASE);
        reg.tail = &group->next;
out:
        pthread_mutex_unlock(&reg.lock);
}

/*
 * The group leaves the list, its events disabled; tj_group_unregister()
 * returns once no tj_event_foreach() that may have seen it still walks (it
 * calls its FN without the lock), and once no record of its events is left
 * for the writer: the module's memory is unmapped after its destructors.
 * A group not registered (built for another ABI) is left alone.
 */
void tj_group_unregister(struct tj_group *group)
{
        struct tj_group **pp;
        bool found = false;

        if (!group)
                return;
        pthread_mutex_lock(&reg.lock);
        for (pp = &reg.groups; *pp; pp = &(*pp)->next)
                if (*pp == group) {
                        found = true;
                        break;
                }
        if (found) {
                for (size_t i = 0; i < group->nevents; i++)
                        if (group->events[i]->dstate)
                                __atomic_store_n(group->events[i]->dstate, 0, __ATOMIC_RELAXED);
                __atomic_store_n(pp, group->next, __ATOMIC_RELEASE);
                if (reg.tail == &group->next)
                        reg.tail = pp;
        }
        pthread_mutex_unlock(&reg.lock);
        if (!found)
                return;
        while (atomic_load(&reg.walkers) != 0) {
                struct timespec ts = { 0, 1000000 };

                nanosleep(&ts, NULL);
        }
        writer_forget_group(group);
}

/* Print what registration found (tj_init()). */
void registry_report_problems(void)
{
        pthread_mutex_lock(&reg.lock);
        for (unsigned i = 0; i < reg.nproblems; i++)
                config_warn("%s", reg.problems[i]);
        reg.nproblems = 0;
        pthread_mutex_unlock(&reg.lock);
}

/* tj_enable(); *RET_LIVE (when not NULL) is set to how many of the events
 * matched are compiled in, the others being 'disable' events.  The pattern is
 * kept for the groups registered later, also when it matched none. */
static int registry_enable(const char *pattern, int *ret_live)
{
        bool on = true;
        int n = 0, live = 0, r;

        if (!pattern)
                return -EINVAL;
        if (*pattern == '-') {
                on = false;
                pattern++;
        }
        if (!*pattern)
                return -EINVAL;
        pthread_mutex_lock(&reg.lock);
        for (const struct tj_group *g = reg.groups; g; g = g->next)
                for (size_t i = 0; i < g->nevents; i++) {
                        struct tj_event *ev = g->events[i];

                        if (!registry_glob(pattern, ev->name))
                                continue;
                        n++;
                        if (ev->dstate && ev->compiled_in) {
                                __atomic_store_n(ev->dstate, on ? 1 : 0, __ATOMIC_RELAXED);
                                live++;
                        }
                }
        r = registry_remember_locked(pattern, on);
        pthread_mutex_unlock(&reg.lock);
        if (ret_live)
                *ret_live = live;
        if (r < 0)
                return r;
        return n > 0 ? n : -ENOENT;
}

int tj_enable(const char *pattern)
{
        return registry_enable(pattern, NULL);
}

/* One pattern of a list: trims blanks, skips empty items.  *RET_LIVE as
 * registry_enable() sets it (-1 for an item skipped or failed). */
static int registry_enable_item(const char *p, size_t len, int *ret_live)
{
        char buf[512];

        *ret_live = -1;

        while (len && (*p == ' ' || *p == '\t')) {
                p++;
                len--;
        }
        while (len && (p[len - 1] == ' ' || p[len - 1] == '\t' || p[len - 1] == '\r'))
                len--;
        if (len == 0)
                return 0;
        if (len >= sizeof(buf))
                return -ENOENT;         /* no event name is that long */
        memcpy(buf, p, len);
        buf[len] = '\0';
        return registry_enable(buf, ret_live);
}

/* Warn (during tj_init) about one pattern that failed, or (R > 0) that
 * matched only events that cannot be enabled: QEMU warns of those too. */
static void registry_warn(const char *warn_as, const char *where, const char *p,
                          size_t len, int r)
{
        if (!warn_as)
                return;
        while (len && (*p == ' ' || *p == '\t')) {
                p++;
                len--;
        }
        while (len && (p[len - 1] == ' ' || p[len - 1] == '\t' || p[len - 1] == '\r'))
                len--;
        if (r > 0)
                config_warn("%s: %s'%.*s' matches only events compiled out "
                            "('disable' in trace-events)", warn_as, where, (int)len, p);
        else if (r == -ENOENT)
                config_warn("%s: %sno event matches '%.*s' (kept for modules loaded later)",
                            warn_as, where, (int)len, p);
        else if (r == -ENOMEM)
                config_warn("%s: %s'%.*s': out of memory, not kept for modules loaded later",
                            warn_as, where, (int)len, p);
        else
                config_warn("%s: %sbad pattern '%.*s'", warn_as, where, (int)len, p);
}

/*
 * tj_enable_list(), with one warning per failing pattern when WARN_AS (the
 * variable's name) is not NULL.
 */
int registry_apply_list(const char *patterns, const char *warn_as)
{
        int first = 0;

        if (!patterns)
                return -EINVAL;
        for (const char *p = patterns; ; ) {
                size_t len = strcspn(p, ",");
                int live, r = registry_enable_item(p, len, &live);

                if (r < 0 || live == 0)
                        registry_warn(warn_as, "", p, len, r);
                if (r < 0 && first == 0)
                        first = r;
                if (!p[len])
                        break;
                p += len + 1;
        }
        return first;
}

int tj_enable_list(const char *patterns)
{
        return registry_apply_list(patterns, NULL);
}

/* tj_enable_file(), warning about each problem when WARN_AS is not NULL. */
int registry_apply_file(const char *path, unsigned *ret_line, const char *warn_as)
{
        FILE *f;
        char line[REGISTRY_LINE_MAX + 2], where[4200];
        size_t len;
        unsigned lineno = 0, bad = 0;
        int ret = 0, err, c = 0;

        if (!path)
                return -EINVAL;
        f = fopen(path, "re");
        if (!f) {
                ret = -errno;
                if (warn_as)
                        config_warn("%s: %s: %s", warn_as, path, strerror(-ret));
                goto out;
        }
        while (c != EOF) {
                const char *p = line;
                size_t n;
                int live, r;

                /* a line at a time, at most REGISTRY_LINE_MAX bytes of it:
                 * TJ_EVENTS_FILE=/dev/zero is one endless line */
                len = 0;
                while (len <= REGISTRY_LINE_MAX && (c = getc(f)) != EOF && c != '\n')
                        line[len++] = (char)c;
                if (c == EOF && len == 0)
                        break;
                line[len] = '\0';
                lineno++;
                if (len > REGISTRY_LINE_MAX) {
                        if (warn_as)
                                config_warn("%s: %s:%u: line longer than %d bytes; "
                                            "the rest of the file is not read", warn_as,
                                            path, lineno, REGISTRY_LINE_MAX);
                        if (ret == 0) {
                                ret = -EINVAL;
                                bad = lineno;
                        }
                        break;
                }
                while (*p == ' ' || *p == '\t')
                        p++;
                if (*p == '#')
                        continue;
                n = strcspn(p, "\r\n");
                r = registry_enable_item(p, n, &live);
                if (r < 0 || live == 0) {
                        snprintf(where, sizeof(where), "%s:%u: ", path, lineno);
                        registry_warn(warn_as, where, p, n, r);
                }
                if (r < 0 && ret == 0) {
                        ret = r;
                        bad = lineno;
                }
        }
        /* a read that failed is said as an open that failed, with its own
         * errno: a directory opens, and was -EIO without a word */
        err = ferror(f) ? (errno > 0 ? -errno : -EIO) : 0;
        if (err < 0 && warn_as)
                config_warn("%s: %s: %s", warn_as, path, strerror(-err));
        if (err < 0 && ret == 0)
                ret = err;
        fclose(f);
out:
        if (ret < 0 && ret_line)
                *ret_line = bad;
        return ret;
}

int tj_enable_file(const char *path, unsigned *ret_line)
{
        return registry_apply_file(path, ret_line, NULL);
}

int tj_event_foreach(const char *pattern,
                     int (*fn)(const struct tj_event_info *info, void *userdata),
                     void *userdata)
{
        int n = 0;

        if (!fn)
                return -EINVAL;
        /* No lock held while FN runs: groups are added at the end, and a
         * group removed (tj_group_unregister()) waits for the walkers. */
        registry_walking++;
        atomic_fetch_add(&reg.walkers, 1);
        pthread_mutex_lock(&reg.lock);
        const struct tj_group *g = reg.groups;
        pthread_mutex_unlock(&reg.lock);
        for (; g; g = __atomic_load_n(&g->next, __ATOMIC_ACQUIRE))
                for (size_t i = 0; i < g->nevents; i++) {
                        const struct tj_event *ev = g->events[i];
                        struct tj_event_info info = {
                                .name = ev->name,
                                .group = g->name,
                                .enabled = ev->compiled_in && ev->dstate &&
                                           __atomic_load_n(ev->dstate, __ATOMIC_RELAXED),
                                .compiled_in = ev->compiled_in,
                        };
                        int r;

                        if (pattern && !registry_glob(pattern, ev->name))
                                continue;
                        r = fn(&info, userdata);
                        if (r != 0) {
                                n = r;
                                goto out;
                        }
                        n++;
                }
out:
        atomic_fetch_sub(&reg.walkers, 1);
        registry_walking--;
        return n;
}
