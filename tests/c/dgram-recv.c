/*
 * dgram-recv.c - a syslog socket for tests: print each datagram as a line.
 *
 *   dgram-recv PATH COUNT
 *
 * Binds a datagram socket at PATH (created anew), then prints COUNT
 * datagrams, one per line, and exits 0; exits 1 when 30 s pass without a
 * datagram (a hang guard, not a speed threshold).  The syslog output never
 * sends a newline, so one line is one datagram.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

int main(int argc, char **argv)
{
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        struct timeval tv = { 30, 0 };
        static char buf[65536];
        long want;
        int fd;

        if (argc != 3) {
                fprintf(stderr, "usage: dgram-recv PATH COUNT\n");
                return 2;
        }
        want = atol(argv[2]);
        fd = socket(AF_UNIX, SOCK_DGRAM, 0);
        snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", argv[1]);
        unlink(argv[1]);
        if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
                perror("dgram-recv");
                return 2;
        }
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
        for (long i = 0; i < want; i++) {
                ssize_t n = recv(fd, buf, sizeof(buf), 0);

                if (n < 0)
                        return 1;
                fwrite(buf, 1, (size_t)n, stdout);
                putchar('\n');
                fflush(stdout);
        }
        return 0;
}
