/*
 * ctl-send.c - send raw bytes to a control endpoint, print the reply.
 *
 *     ctl-send SOCKET [idle]  < request-bytes
 *
 * Sends standard input as is (NUL bytes, no newline, megabytes...), closes
 * its sending side and copies the reply to standard output, so that the
 * tests can hand the server what traceql ctl never would.  With "idle" it
 * sends nothing and keeps the sending side open (the server must time out),
 * saying "connected" on standard error once it is.
 * Exit status 0 when a reply came, 1 otherwise.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

int main(int argc, char **argv)
{
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        char buf[65536];
        size_t got = 0;
        ssize_t n;
        int fd;

        if (argc < 2 || strlen(argv[1]) >= sizeof(sa.sun_path)) {
                fputs("usage: ctl-send SOCKET [idle] < request\n", stderr);
                return 2;
        }
        strcpy(sa.sun_path, argv[1]);
        fd = socket(AF_UNIX, SOCK_STREAM, 0);
        if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
                fprintf(stderr, "ctl-send: %s: %s\n", argv[1], strerror(errno));
                return 1;
        }
        if (argc >= 3 && strcmp(argv[2], "idle") == 0) {
                fputs("connected\n", stderr);
                fflush(stderr);
        } else {
                while ((n = read(0, buf, sizeof(buf))) > 0)
                        if (send(fd, buf, (size_t)n, MSG_NOSIGNAL) != n)
                                break;  /* the server answered early */
                shutdown(fd, SHUT_WR);
        }
        while ((n = recv(fd, buf, sizeof(buf), 0)) > 0) {
                fwrite(buf, 1, (size_t)n, stdout);
                got += (size_t)n;
        }
        close(fd);
        return got > 0 ? 0 : 1;
}
