/*
 * tgroup.h - two hand-written event groups, shaped exactly like the code
 * tracegen generates, for the library tests (they do not depend on tracegen).
 *
 * Group "tga": tga_all(i64, u64, ptr, s, i32, u8) covers every argument kind,
 * tga_void() has none, tga_off is a 'disable' event.  Group "tgb": tgb_req(req,
 * sector, name) and tgb_done(req).  Include it from exactly one .c file.
 */
#ifndef TGROUP_H
#define TGROUP_H

#include <inttypes.h>
#include <stdio.h>
#include "tracejournal.h"

static uint16_t _TRACE_TGA_ALL_DSTATE, _TRACE_TGA_VOID_DSTATE, _TRACE_TGA_OFF_DSTATE;
static uint16_t _TRACE_TGB_REQ_DSTATE, _TRACE_TGB_DONE_DSTATE;

static const struct tj_arg_desc tga_all_args[] = {
        { "i64", "TRACE_ARG_I64=", "int64_t", TJ_ARG_SIGNED },
        { "u64", "TRACE_ARG_U64=", "uint64_t", TJ_ARG_UNSIGNED },
        { "ptr", "TRACE_ARG_PTR=", "void *", TJ_ARG_POINTER },
        { "s", "TRACE_ARG_S=", "const char *", TJ_ARG_STRING },
        { "i32", "TRACE_ARG_I32=", "int", TJ_ARG_SIGNED },
        { "u8", "TRACE_ARG_U8=", "uint8_t", TJ_ARG_UNSIGNED },
};

static int tga_all_render(char *buf, size_t size, const tj_value *v)
{
        return snprintf(buf, size, "i64 %" PRId64 " u64 %" PRIu64 " ptr %p s %s i32 %d u8 %u",
                        v[0].i, v[1].u, v[2].p, v[3].s, (int)v[4].i, (unsigned)v[5].u);
}

static int tga_void_render(char *buf, size_t size, const tj_value *v)
{
        (void)v;
        return snprintf(buf, size, "%s", "nothing");
}

static struct tj_event _TRACE_TGA_ALL_EVENT = {
        .name = "tga_all",
        .fmt = "\"i64 %\" PRId64 \" u64 %\" PRIu64 \" ptr %p s %s i32 %d u8 %u\"",
        .argsig = "TRACE_ARGS=i64:i u64:u ptr:p s:s i32:i u8:u",
        .args = tga_all_args, .nargs = 6,
        .dstate = &_TRACE_TGA_ALL_DSTATE, .compiled_in = true,
        .render = tga_all_render,
};
static struct tj_event _TRACE_TGA_VOID_EVENT = {
        .name = "tga_void", .fmt = "\"nothing\"", .argsig = "TRACE_ARGS=",
        .nargs = 0, .dstate = &_TRACE_TGA_VOID_DSTATE, .compiled_in = true,
        .render = tga_void_render,
};
static struct tj_event _TRACE_TGA_OFF_EVENT = {
        .name = "tga_off", .fmt = "\"nothing\"", .argsig = "TRACE_ARGS=",
        .nargs = 0, .dstate = &_TRACE_TGA_OFF_DSTATE, .compiled_in = false,
        .render = tga_void_render,
};
static struct tj_event *const tga_events[] = {
        &_TRACE_TGA_ALL_EVENT, &_TRACE_TGA_VOID_EVENT, &_TRACE_TGA_OFF_EVENT,
};
static struct tj_group tga_group = {
        .abi = TJ_ABI_VERSION, .name = "tga", .source = "tests/c/tgroup.h",
        .events = tga_events, .nevents = 3,
};

static const struct tj_arg_desc tgb_req_args[] = {
        { "req", "TRACE_ARG_REQ=", "void *", TJ_ARG_POINTER },
        { "sector", "TRACE_ARG_SECTOR=", "uint64_t", TJ_ARG_UNSIGNED },
        { "name", "TRACE_ARG_NAME=", "const char *", TJ_ARG_STRING },
};
static int tgb_req_render(char *buf, size_t size, const tj_value *v)
{
        return snprintf(buf, size, "req %p sector %" PRIu64 " name %s", v[0].p, v[1].u, v[2].s);
}
static int tgb_done_render(char *buf, size_t size, const tj_value *v)
{
        return snprintf(buf, size, "req %p", v[0].p);
}
static struct tj_event _TRACE_TGB_REQ_EVENT = {
        .name = "tgb_req", .fmt = "\"req %p sector %\" PRIu64 \" name %s\"",
        .argsig = "TRACE_ARGS=req:p sector:u name:s",
        .args = tgb_req_args, .nargs = 3,
        .dstate = &_TRACE_TGB_REQ_DSTATE, .compiled_in = true,
        .render = tgb_req_render,
};
static struct tj_event _TRACE_TGB_DONE_EVENT = {
        .name = "tgb_done", .fmt = "\"req %p\"", .argsig = "TRACE_ARGS=req:p",
        .args = tgb_req_args, .nargs = 1,
        .dstate = &_TRACE_TGB_DONE_DSTATE, .compiled_in = true,
        .render = tgb_done_render,
};
static struct tj_event *const tgb_events[] = { &_TRACE_TGB_REQ_EVENT, &_TRACE_TGB_DONE_EVENT };
static struct tj_group tgb_group = {
        .abi = TJ_ABI_VERSION, .name = "tgb", .source = "tests/c/tgroup.h",
        .events = tgb_events, .nevents = 2,
};

__attribute__((constructor)) static void tgroup_register(void)
{
        tj_group_register(&tga_group);
        tj_group_register(&tgb_group);
}

static inline void _tj_trace_tga_all(const struct tj_site *site, int64_t i64, uint64_t u64, const void *ptr, const char *s,
                                 int i32, uint8_t u8)
{
        if (TJ_UNLIKELY(__atomic_load_n(&_TRACE_TGA_ALL_DSTATE, __ATOMIC_RELAXED))) {
                tj_value v[6];

                v[0].i = i64; v[1].u = u64; v[2].p = ptr; v[3].s = s;
                v[4].i = i32; v[5].u = u8;
                tj_emit(&_TRACE_TGA_ALL_EVENT, site, v);
        }
}
static inline void _tj_trace_tga_void(const struct tj_site *site)
{
        if (TJ_UNLIKELY(__atomic_load_n(&_TRACE_TGA_VOID_DSTATE, __ATOMIC_RELAXED)))
                tj_emit(&_TRACE_TGA_VOID_EVENT, site, NULL);
}
static inline void _tj_trace_tgb_req(const struct tj_site *site, const void *req, uint64_t sector, const char *name)
{
        if (TJ_UNLIKELY(__atomic_load_n(&_TRACE_TGB_REQ_DSTATE, __ATOMIC_RELAXED))) {
                tj_value v[3];

                v[0].p = req; v[1].u = sector; v[2].s = name;
                tj_emit(&_TRACE_TGB_REQ_EVENT, site, v);
        }
}
static inline void _tj_trace_tgb_done(const struct tj_site *site, const void *req)
{
        if (TJ_UNLIKELY(__atomic_load_n(&_TRACE_TGB_DONE_DSTATE, __ATOMIC_RELAXED))) {
                tj_value v[1];

                v[0].p = req;
                tj_emit(&_TRACE_TGB_DONE_EVENT, site, v);
        }
}

/* As generated: the macro captures the caller's file, line and function. */
#define trace_tga_all(...)      _tj_trace_tga_all(TJ_SITE(), __VA_ARGS__)
#define trace_tga_void()        _tj_trace_tga_void(TJ_SITE())
#define trace_tgb_req(...)      _tj_trace_tgb_req(TJ_SITE(), __VA_ARGS__)
#define trace_tgb_done(...)     _tj_trace_tgb_done(TJ_SITE(), __VA_ARGS__)

#endif /* TGROUP_H */
