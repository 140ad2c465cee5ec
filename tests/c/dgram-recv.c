/*
 * dgram-recv.c - a syslog socket for tests: print each datagram as a line.
 *
 *   dgram-recv PATH COUNT [stream|stream1]
 *
 * Binds a datagram socket at PATH (created anew), then prints COUNT
 * datagrams, one per line, and exits 0; exits 1 when 30 s pass without a
 * datagram (a hang guard, not a speed threshold).  Stopped (SIGSTOP) and
 * continued, it goes on.  The syslog output never sends a newline, so one
 * line is one datagram.
 *
 * With 'stream', PATH is a stream socket, as some syslog daemons have: it
 * prints COUNT records, each ended by a NUL as syslog(3) sends them, and
 * takes the next connection when one is closed; a connection closed in the
 * middle of a record prints it as "unterminated: RECORD".  With 'stream1' it
 * closes each connection after its first record, as a daemon that restarts.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

static char buf[65536];

static int recv_dgrams(int fd, long want)
{
        for (long i = 0; i < want; i++) {
                ssize_t n = recv(fd, buf, sizeof(buf), 0);

                if (n < 0 && errno == EINTR) {  /* stopped and continued */
                        i--;
                        continue;
                }
                if (n < 0)
                        return 1;
                fwrite(buf, 1, (size_t)n, stdout);
                putchar('\n');
                fflush(stdout);
        }
        return 0;
}

/* Print the NUL-ended records of the connections to FD, ONE per connection
 * when ONE is set. */
static int recv_records(int fd, long want, int one)
{
        struct timeval tv = { 30, 0 };
        size_t len = 0;
        int c = -1;

        if (listen(fd, 8) < 0) {
                perror("dgram-recv");
                return 2;
        }
        for (long i = 0; i < want;) {
                char *nul;
                ssize_t n;

                if (c < 0) {
                        c = accept(fd, NULL, NULL);
                        if (c < 0)
                                return 1;
                        setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
                        len = 0;
                }
                nul = memchr(buf, '\0', len);
                if (nul) {
                        printf("%s\n", buf);
                        fflush(stdout);
                        i++;
                        len -= (size_t)(nul + 1 - buf);
                        memmove(buf, nul + 1, len);
                        if (one) {
                                close(c);
                                c = -1;
                        }
                        continue;
                }
                n = recv(c, buf + len, sizeof(buf) - 1 - len, 0);
                if (n < 0)
                        return 1;
                if (n == 0) {
                        if (len > 0) {
                                buf[len] = '\0';
                                printf("unterminated: %s\n", buf);
                                i++;
                        }
                        close(c);
                        c = -1;
                        continue;
                }
                len += (size_t)n;
        }
        return 0;
}

int main(int argc, char **argv)
{
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        struct timeval tv = { 30, 0 };
        int fd, stream = argc == 4 && strncmp(argv[3], "stream", 6) == 0;

        if ((argc != 3 && !stream) || (stream && strcmp(argv[3] + 6, "") != 0 &&
                                       strcmp(argv[3] + 6, "1") != 0)) {
                fprintf(stderr, "usage: dgram-recv PATH COUNT [stream|stream1]\n");
                return 2;
        }
        fd = socket(AF_UNIX, stream ? SOCK_STREAM : SOCK_DGRAM, 0);
        snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", argv[1]);
        unlink(argv[1]);
        if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
                perror("dgram-recv");
                return 2;
        }
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
        if (stream)
                return recv_records(fd, atol(argv[2]), argv[3][6] == '1');
        return recv_dgrams(fd, atol(argv[2]));
}
