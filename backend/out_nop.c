/*
 * out_nop.c - the nop output: accepts every event and sends it nowhere.
 *
 * Useful to measure the cost of the record path alone (make bench) and to
 * keep the events' state and statistics without any destination.
 */
#include "internal.h"

static int nop_open(void)
{
        return 0;
}

static int nop_write(const struct record *r, const tj_value *v, const char *msg)
{
        (void)r;
        (void)v;
        (void)msg;
        return 0;
}

static void nop_close(void)
{
}

TJ_HIDDEN const struct tj_output out_nop = {
        .name = "nop",
        .open = nop_open,
        .write = nop_write,
        .close = nop_close,
};
