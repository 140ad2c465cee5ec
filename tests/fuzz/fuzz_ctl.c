/*
 * fuzz_ctl.c - libFuzzer target for the control endpoint's request parser
 * (backend/control_request.c), which reads bytes from any local process of
 * the same uid.  Checks, beyond "no crash": a parsed request has a known
 * command and a NUL-terminated, blank-free argument that was in the input;
 * a refused one has a non-empty, printable, one-line message.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE     /* memmem */
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "control.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct control_request req;
        char err[CONTROL_ARG_MAX + 256];
        size_t n;
        int r;

        memset(err, 0, sizeof(err));
        r = control_request_parse((const char *)data, size, &req, err, sizeof(err));
        if (r == 0) {
                if (req.cmd < CONTROL_LIST || req.cmd > CONTROL_OUTPUTS)
                        abort();
                n = strnlen(req.arg, sizeof(req.arg));
                if (n > CONTROL_ARG_MAX)
                        abort();
                if (strpbrk(req.arg, " \t\r\n"))
                        abort();
                if (n > 0 && !memmem(data, size, req.arg, n))
                        abort();
                return 0;
        }
        n = strnlen(err, sizeof(err));
        if (n == 0 || n == sizeof(err))
                abort();
        for (size_t i = 0; i < n; i++)
                if ((unsigned char)err[i] < 0x20 || (unsigned char)err[i] >= 0x7f)
                        abort();
        return 0;
}
