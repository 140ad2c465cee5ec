#!/bin/sh
# t-lib-dlclose.sh - a module with trace points, loaded with dlopen() and
# unloaded with dlclose(): its generated destructor unregisters its group.
# Before, the registry kept the unmapped group and the rings kept records
# pointing at its events, render function and call sites: the writer's next
# pass, tj_flush() or tj_enable() after the dlclose() died of SIGSEGV
# (status 139), with any output, nop included.  Now the events traced are
# written before the module goes (tj_flush() bounded), or, when no writer
# runs yet (before tj_init()), counted dropped; tj_enable() no longer finds
# them; the module loads again, its events registered anew.
. "$(dirname "$0")/lib/common.sh"

CC=${CC:-cc}
CF="-std=gnu11 -Wall -Wextra -Werror $SAN_FLAGS -I$TOP/include"
cd "$T"
echo 'mod_hit(int n, const char *s) "n %d s %s"' > mod.events
"$B/tracegen" -g mod -H mod-trace.h -s mod-trace.c mod.events
cat > mod.c <<'SRC'
#include "mod-trace.h"
void mod_fire(int n);
void mod_fire(int n)
{
        for (int i = 0; i < n; i++)
                trace_mod_hit(i, "from the module");
}
SRC
cat > dl.c <<'SRC'
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracejournal.h>

static int count(const struct tj_event_info *info, void *userdata)
{
        (void)info;
        (void)userdata;
        return 0;
}

/* argv[1]: "init" to call tj_init() before the module fires, else after
 * the dlclose(); argv[2]: how many times to load, fire and unload */
int main(int argc, char **argv)
{
        int early = argc > 1 && strcmp(argv[1], "init") == 0;
        int rounds = argc > 2 ? atoi(argv[2]) : 1;
        struct tj_stats st;

        if (early)
                tj_init("tj-dlclose");
        for (int k = 0; k < rounds; k++) {
                void *h = dlopen("./mod.so", RTLD_NOW);
                void (*fire)(int);

                if (!h) {
                        printf("dlopen: %s\n", dlerror());
                        return 2;
                }
                printf("enable=%d events=%d\n", tj_enable("mod_*"), tj_event_foreach(NULL, count, NULL));
                *(void **)&fire = dlsym(h, "mod_fire");
                fire(100);
                dlclose(h);
                printf("closed enable=%d events=%d\n", tj_enable("mod_*"),
                       tj_event_foreach(NULL, count, NULL));
        }
        if (!early)
                tj_init("tj-dlclose");
        printf("flush=%d\n", tj_flush());
        tj_get_stats(&st);
        printf("emitted=%llu written=%llu dropped=%llu\n", (unsigned long long)st.emitted,
               (unsigned long long)st.written, (unsigned long long)st.dropped);
        return 0;
}
SRC
# A fork while another thread walks the events (tj_event_foreach(), as the
# control endpoint's list request does): the child counted that walk as
# still going on, for ever, and its tj_group_unregister() (a tracegen
# group's destructor at exit, a dlclose()) waited for it: the child hung
# (killed by its 10 s alarm: signal 14).  A walk the forking thread itself
# is in (a fork from the callback) is the child's to end.  Not under ASan
# or TSan, whose runtimes can deadlock in a child forked from a
# multithreaded process (t-lib-async.sh).
case "${SANITIZE:-}" in
*address*|*thread*)
        skip lib-dlclose-fork-walk "the ASan and TSan runtimes can deadlock in a forked child" ;;
*)
        TJ_QUIET=1 timeout 60 $RUN "$B/tests/lib-emit" two walkfork > out 2>&1 && st=0 || st=$?
        check_eq lib-dlclose-fork-walk "walkfork child=exit 0
status 0" "$(cat out; echo "status $st")"
        TJ_QUIET=1 timeout 60 $RUN "$B/tests/lib-emit" two walkfork:self > out 2>&1 && st=0 || st=$?
        check_eq lib-dlclose-fork-walk-self "walkfork child=exit 0
status 0" "$(cat out; echo "status $st")" ;;
esac

if ! $CC $CF -fPIC -shared -o mod.so mod.c mod-trace.c -L"$B" -ltracejournal 2> cc.err ||
   ! $CC $CF -o dl dl.c -L"$B" -ltracejournal -ldl 2>> cc.err; then
        fail lib-dlclose-build "$(head -3 cc.err)"
        exit 0
fi

for outs in nop log; do
        TJ_OUTPUT=$outs LD_LIBRARY_PATH="$B" $RUN ./dl init 3 > out 2> err && st=0 || st=$?
        check_eq lib-dlclose-$outs "enable=1 events=1
closed enable=-2 events=0
enable=1 events=1
closed enable=-2 events=0
enable=1 events=1
closed enable=-2 events=0
flush=0
emitted=300 written=300 dropped=0
status 0" "$(cat out; echo "status $st")"
done
check_eq lib-dlclose-log-lines 300 "$(grep -c '^mod_hit n [0-9]* s from the module$' err || true)"

# Traced before tj_init(): no writer to send them before the module goes.
TJ_OUTPUT=nop LD_LIBRARY_PATH="$B" $RUN ./dl late 1 > out 2>&1 && st=0 || st=$?
check_eq lib-dlclose-before-init "enable=1 events=1
closed enable=-2 events=0
flush=0
emitted=100 written=0 dropped=100
status 0" "$(cat out; echo "status $st")"

# A module loaded after tj_init() gets the patterns applied before: those of
# TJ_EVENTS, then those of tj_enable(), in order, on every load.  Before, its
# events started disabled, whatever TJ_EVENTS said: TJ_EVENTS='*' traced
# nothing of a dlopen()ed module, as QEMU's modules are.
cat > pat.c <<'SRC'
#include <dlfcn.h>
#include <stdio.h>
#include <tracejournal.h>

static unsigned long long fire_once(const char *what)
{
        void *h = dlopen("./mod.so", RTLD_NOW);
        void (*fire)(int);
        struct tj_stats st;

        if (!h) {
                printf("dlopen: %s\n", dlerror());
                return 0;
        }
        *(void **)&fire = dlsym(h, "mod_fire");
        fire(5);
        dlclose(h);
        tj_get_stats(&st);
        printf("%s emitted=%llu\n", what, (unsigned long long)st.emitted);
        return st.emitted;
}

int main(void)
{
        printf("init=%d\n", tj_init("tj-dlpat"));
        fire_once("load");
        printf("disable=%d\n", tj_enable("-mod_h?t"));
        fire_once("reload");
        printf("enable=%d\n", tj_enable("*"));
        fire_once("again");
        return 0;
}
SRC
if ! $CC $CF -o pat pat.c -L"$B" -ltracejournal -ldl 2> cc.err; then
        fail lib-dlclose-patterns-build "$(head -3 cc.err)"
        exit 0
fi
TJ_QUIET=1 TJ_OUTPUT=nop TJ_EVENTS='nothing_*,mod_*' LD_LIBRARY_PATH="$B" $RUN ./pat > out 2>&1 && st=0 || st=$?
check_eq lib-dlclose-patterns "init=-2
load emitted=5
disable=-2
reload emitted=5
enable=-2
again emitted=10
status 0" "$(cat out; echo "status $st")"
TJ_QUIET=0 TJ_OUTPUT=nop TJ_EVENTS='mod_*,-mod_hit' LD_LIBRARY_PATH="$B" $RUN ./pat > out 2>&1 && st=0 || st=$?
check_eq lib-dlclose-patterns-order "tracejournal: TJ_EVENTS: no event matches 'mod_*' (kept for modules loaded later)
tracejournal: TJ_EVENTS: no event matches '-mod_hit' (kept for modules loaded later)
init=-2
load emitted=0
disable=-2
reload emitted=0
enable=-2
again emitted=5
status 0" "$(cat out; echo "status $st")"
