# tracejournal - one plain GNU makefile.  Outputs go under build/.
#
#   make                build tracegen, traceql, libtracejournal (.so + .a), tracejournal.pc
#   make check          run the whole test suite (tests/run); needs a journald (started if root)
#   make demo           set up, build and run the example end to end (examples/demo.sh)
#   make bench          performance figures (bench/), no thresholds
#   make install        PREFIX, DESTDIR, LIBDIR, MANDIR, BINDIR, INCLUDEDIR
#   make uninstall      mirrors install
#   make SANITIZE=address,undefined check

VERSION      = 0.1.0
SOVERSION    = 0

PREFIX      ?= /usr/local
BINDIR      ?= $(PREFIX)/bin
LIBDIR      ?= $(PREFIX)/lib
INCLUDEDIR  ?= $(PREFIX)/include
MANDIR      ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions

CC          ?= cc
PKG_CONFIG  ?= pkg-config
INSTALL     ?= install
B           := build

DEPS_CFLAGS := $(shell $(PKG_CONFIG) --cflags libsystemd libpcre2-8 sqlite3 2>/dev/null)
SYSTEMD_LIBS := $(shell $(PKG_CONFIG) --libs libsystemd 2>/dev/null)
PCRE2_LIBS  := $(shell $(PKG_CONFIG) --libs libpcre2-8 2>/dev/null)
SQLITE_LIBS := $(shell $(PKG_CONFIG) --libs sqlite3 2>/dev/null)

CFLAGS      ?= -O2 -g
WARN        := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
               -Wformat=2 -Wno-format-nonliteral
ifneq ($(SANITIZE),)
CFLAGS      += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer
LDFLAGS     += -fsanitize=$(SANITIZE)
endif
ALL_CFLAGS  := -std=gnu11 $(WARN) -D_GNU_SOURCE -DTJ_VERSION_STRING='"$(VERSION)"' \
               -Iinclude -Ibackend -Ianalyzer $(DEPS_CFLAGS) $(CFLAGS) -MMD -MP
PIC_CFLAGS  := $(ALL_CFLAGS) -fPIC -fvisibility=hidden

# The runtime library: every .c directly under backend/.
LIB_SRCS    := $(wildcard backend/*.c)
LIB_OBJS    := $(LIB_SRCS:%.c=$(B)/%.o)
LIB_PIC     := $(LIB_SRCS:%.c=$(B)/pic/%.o)
LIB_SO      := $(B)/libtracejournal.so.$(SOVERSION)
LIB_LIBS    := $(SYSTEMD_LIBS) -lpthread

# The generator: backend/tracegen/.
TG_SRCS     := $(wildcard backend/tracegen/*.c)
TG_OBJS     := $(TG_SRCS:%.c=$(B)/%.o)

# The analyzer: analyzer/, with sql/*.sql embedded.
TQ_SRCS     := $(wildcard analyzer/*.c)
TQ_OBJS     := $(TQ_SRCS:%.c=$(B)/%.o) $(B)/sql_embed.o
SQL_FILES   := $(sort $(wildcard sql/*.sql))

PROGS       := $(B)/tracegen
ifneq ($(TQ_SRCS),)
PROGS       += $(B)/traceql
endif

all: $(PROGS) $(LIB_SO) $(B)/libtracejournal.so $(B)/libtracejournal.a $(B)/tracejournal.pc

$(B)/%.o: %.c
	@mkdir -p "$(@D)"
	$(CC) $(ALL_CFLAGS) -c -o "$@" "$<"

$(B)/pic/%.o: %.c
	@mkdir -p "$(@D)"
	$(CC) $(PIC_CFLAGS) -c -o "$@" "$<"

$(LIB_SO): $(LIB_PIC) backend/libtracejournal.map
	$(CC) -shared -Wl,-soname,libtracejournal.so.$(SOVERSION) \
		-Wl,--version-script=backend/libtracejournal.map $(LDFLAGS) \
		-o "$@" $(LIB_PIC) $(LIB_LIBS)

$(B)/libtracejournal.so: $(LIB_SO)
	ln -sf libtracejournal.so.$(SOVERSION) "$@"

$(B)/libtracejournal.a: $(LIB_OBJS)
	rm -f "$@"
	$(AR) rcs "$@" $(LIB_OBJS)

$(B)/tracegen: $(TG_OBJS)
	$(CC) $(LDFLAGS) -o "$@" $(TG_OBJS)

$(B)/traceql: $(TQ_OBJS)
	$(CC) $(LDFLAGS) -o "$@" $(TQ_OBJS) $(SQLITE_LIBS) $(PCRE2_LIBS) $(SYSTEMD_LIBS) -lm

# sql/*.sql become one C file of string constants (no xxd needed).
$(B)/sql_embed.c: $(SQL_FILES) sql/embed.sh
	@mkdir -p "$(@D)"
	sh sql/embed.sh $(SQL_FILES) > "$@"

$(B)/sql_embed.o: $(B)/sql_embed.c
	$(CC) $(ALL_CFLAGS) -c -o "$@" "$<"

$(B)/tracejournal.pc: packaging/tracejournal.pc.in Makefile
	@mkdir -p "$(@D)"
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@VERSION@|$(VERSION)|g' \
	    packaging/tracejournal.pc.in > "$@"

check: all
	sh tests/run

demo:
	sh examples/demo.sh

bench: all
	sh bench/run

install: all
	$(INSTALL) -d "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(LIBDIR)" "$(DESTDIR)$(INCLUDEDIR)" \
		"$(DESTDIR)$(PKGCONFIGDIR)" "$(DESTDIR)$(MANDIR)/man1" "$(DESTDIR)$(MANDIR)/man3" \
		"$(DESTDIR)$(MANDIR)/man5" "$(DESTDIR)$(MANDIR)/man7"
	$(INSTALL) -m 755 $(PROGS) "$(DESTDIR)$(BINDIR)"
	$(INSTALL) -m 755 "$(LIB_SO)" "$(DESTDIR)$(LIBDIR)/libtracejournal.so.$(SOVERSION)"
	ln -sf "libtracejournal.so.$(SOVERSION)" "$(DESTDIR)$(LIBDIR)/libtracejournal.so"
	$(INSTALL) -m 644 $(B)/libtracejournal.a "$(DESTDIR)$(LIBDIR)"
	$(INSTALL) -m 644 include/tracejournal.h "$(DESTDIR)$(INCLUDEDIR)"
	$(INSTALL) -m 644 $(B)/tracejournal.pc "$(DESTDIR)$(PKGCONFIGDIR)"
	for m in man/*.[1-9]; do \
		s=$${m##*.}; $(INSTALL) -m 644 "$$m" "$(DESTDIR)$(MANDIR)/man$$s"; done

uninstall:
	for p in $(notdir $(PROGS)); do rm -f "$(DESTDIR)$(BINDIR)/$$p"; done
	rm -f "$(DESTDIR)$(LIBDIR)/libtracejournal.so.$(SOVERSION)" \
		"$(DESTDIR)$(LIBDIR)/libtracejournal.so" "$(DESTDIR)$(LIBDIR)/libtracejournal.a" \
		"$(DESTDIR)$(INCLUDEDIR)/tracejournal.h" "$(DESTDIR)$(PKGCONFIGDIR)/tracejournal.pc"
	for m in man/*.[1-9]; do \
		s=$${m##*.}; rm -f "$(DESTDIR)$(MANDIR)/man$$s/$${m##*/}"; done

clean:
	rm -rf $(B)

.PHONY: all check demo bench install uninstall clean

-include $(shell find $(B) -name '*.d' 2>/dev/null)
