/*
 * control_request.c - parse one request of the control endpoint.
 *
 * Kept apart from the server (control.c) and free of state so that it can be
 * fuzzed on a plain buffer.  A request is printable ASCII: a command word,
 * then at most one argument, separated by blanks (space or tab); a trailing
 * "\r\n" or "\n" is allowed.  Everything else is refused with a message that
 * the server sends back as "error MESSAGE".
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "control.h"

enum control_arg_rule {
        CONTROL_ARG_NONE,
        CONTROL_ARG_OPTIONAL,
        CONTROL_ARG_REQUIRED,
};

static const struct {
        const char *name;
        enum control_cmd cmd;
        enum control_arg_rule arg;
        const char *argname;
} control_commands[] = {
        { "list", CONTROL_LIST, CONTROL_ARG_OPTIONAL, "PATTERN" },
        { "enable", CONTROL_ENABLE, CONTROL_ARG_REQUIRED, "PATTERN" },
        { "disable", CONTROL_DISABLE, CONTROL_ARG_REQUIRED, "PATTERN" },
        { "flush", CONTROL_FLUSH, CONTROL_ARG_NONE, NULL },
        { "stats", CONTROL_STATS, CONTROL_ARG_NONE, NULL },
        { "outputs", CONTROL_OUTPUTS, CONTROL_ARG_OPTIONAL, "LIST" },
};

static int control_error(char *errbuf, size_t errsize, int r, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
static int control_error(char *errbuf, size_t errsize, int r, const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(errbuf, errsize, fmt, ap);
        va_end(ap);
        return r;
}

static bool control_blank(char c)
{
        return c == ' ' || c == '\t';
}

int control_request_parse(const char *buf, size_t len, struct control_request *ret,
                          char *errbuf, size_t errsize)
{
        const char *nl = buf ? memchr(buf, '\n', len) : NULL;
        size_t i, cmd_len, arg_start, arg_len;

        if (!buf || !ret || !errbuf || errsize == 0)
                return -EINVAL;
        if (nl && (size_t)(nl - buf) + 1 < len)
                return control_error(errbuf, errsize, -EINVAL,
                                     "one request per connection");
        if (len > CONTROL_REQUEST_MAX || (len == CONTROL_REQUEST_MAX && !nl))
                return control_error(errbuf, errsize, -E2BIG,
                                     "request too long (at most %u bytes)",
                                     CONTROL_REQUEST_MAX - 1);
        if (nl)
                len--;
        if (len > 0 && buf[len - 1] == '\r')
                len--;
        for (i = 0; i < len; i++) {
                unsigned char c = (unsigned char)buf[i];

                if ((c < 0x20 && c != '\t') || c >= 0x7f)
                        return control_error(errbuf, errsize, -EINVAL,
                                             "byte 0x%02x at offset %zu: requests are "
                                             "printable ASCII", c, i);
        }
        for (i = 0; i < len && control_blank(buf[i]); i++)
                ;
        if (i == len)
                return control_error(errbuf, errsize, -EINVAL, "empty request");
        if (i > 0)
                return control_error(errbuf, errsize, -EINVAL,
                                     "blank before the command");
        for (cmd_len = 0; cmd_len < len && !control_blank(buf[cmd_len]); cmd_len++)
                ;
        for (arg_start = cmd_len; arg_start < len && control_blank(buf[arg_start]); arg_start++)
                ;
        for (arg_len = 0; arg_start + arg_len < len && !control_blank(buf[arg_start + arg_len]);
             arg_len++)
                ;
        for (i = arg_start + arg_len; i < len && control_blank(buf[i]); i++)
                ;
        for (size_t k = 0; k < sizeof(control_commands) / sizeof(control_commands[0]); k++) {
                if (strlen(control_commands[k].name) != cmd_len ||
                    memcmp(control_commands[k].name, buf, cmd_len) != 0)
                        continue;
                if (i < len)
                        return control_error(errbuf, errsize, -EINVAL,
                                             "%s: too many arguments", control_commands[k].name);
                if (arg_len > 0 && control_commands[k].arg == CONTROL_ARG_NONE)
                        return control_error(errbuf, errsize, -EINVAL,
                                             "%s: takes no argument", control_commands[k].name);
                if (arg_len == 0 && control_commands[k].arg == CONTROL_ARG_REQUIRED)
                        return control_error(errbuf, errsize, -EINVAL, "%s: missing %s",
                                             control_commands[k].name,
                                             control_commands[k].argname);
                if (arg_len > CONTROL_ARG_MAX)
                        return control_error(errbuf, errsize, -E2BIG,
                                             "%s: %s too long (at most %u bytes)",
                                             control_commands[k].name,
                                             control_commands[k].argname, CONTROL_ARG_MAX);
                if (arg_len > 0 && buf[arg_start] == '-' &&
                    control_commands[k].arg == CONTROL_ARG_REQUIRED)
                        return control_error(errbuf, errsize, -EINVAL,
                                             "%s: a PATTERN cannot start with '-'",
                                             control_commands[k].name);
                ret->cmd = control_commands[k].cmd;
                memcpy(ret->arg, buf + arg_start, arg_len);
                ret->arg[arg_len] = '\0';
                return 0;
        }
        return control_error(errbuf, errsize, -EINVAL, "unknown command '%.*s'",
                             (int)(cmd_len > 32 ? 32 : cmd_len), buf);
}
