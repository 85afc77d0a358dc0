/* fuzz_client.c — libFuzzer harness of the co-simulation client library
 * (sim/cosim/hca_client.h): what a QEMU device model or a user-space driver
 * links must survive any server. A fake server (a thread on a Unix socket)
 * sends the input's messages to a real hca_client while the client runs a
 * driver's script of requests.
 *
 * Input: records, each mode (1 byte), length (2, little-endian, at most
 *   MAX_MSG), that many bytes: one message the server sends. mode bit 0
 *   frames it (the header's len made the message's size, version 1). The
 *   server sends every record, then closes its side, reading what the client
 *   sends meanwhile.
 * The client: connect (HELLO), then a driver's script — register reads and
 *   writes, waits (with and without the interrupt), the clock — until the
 *   connection is gone.
 * Oracle: no crash or sanitizer report; every message the client sends is
 *   well-formed (hca_wire_check) and each DMA answer echoes the request's seq;
 *   once hca_client_connect succeeded, a disconnected client fails every
 *   request with -ENOTCONN, reads give 0, and its clock runs on by each
 *   wait's max_cycles; the interrupt level is 0 or 1.
 * HCASIM_FUZZ_CLIENT_SEEDS=DIR writes the seed servers to DIR and exits.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "fuzz_records.h"
#include "hca_client.h"
#include "hca_wire.h"

#define MAX_MSG 4096u
#define SCRIPT_STEPS 16

static char sock_dir[64];
static char sock_path[128];
static int listen_fd = -1;

#define die(...) fuzz_fail("client", __VA_ARGS__)

typedef struct fake_server {
    const uint8_t *data;
    size_t size;
} fake_server_t;

static uint8_t srv_rx[HCA_WIRE_MSG_MAX + 1];

/* Send every record, shut the sending side, then read the client until it goes. */
static void *serve(void *p)
{
    const fake_server_t *s = p;
    int fd = accept(listen_fd, NULL, NULL);
    if (fd < 0)
        die("accept: %s", strerror(errno));
    static uint8_t m[MAX_MSG];
    size_t at = 0;
    size_t n;
    uint8_t mode;
    while ((n = fuzz_record_next(s->data, s->size, &at, m, MAX_MSG, &mode))) {
        if (send(fd, m, n, MSG_NOSIGNAL) != (ssize_t)n)
            break; /* the client went away */
    }
    shutdown(fd, SHUT_WR);
    for (;;) {
        ssize_t got = recv(fd, srv_rx, sizeof srv_rx, MSG_TRUNC);
        if (got <= 0)
            break;
        hca_wire_error_t e;
        if (hca_wire_check(srv_rx, (size_t)got > sizeof srv_rx ? sizeof srv_rx : (size_t)got, &e))
            die("the client sent a malformed message: %s", e.msg);
    }
    close(fd);
    return NULL;
}

/* A driver's requests; the contract once the connection is gone. */
static void script(hca_client_t *cl)
{
    hca_host_t host = hca_client_host(cl);
    for (unsigned i = 0; i < SCRIPT_STEPS; i++) {
        const int was = hca_client_connected(cl);
        const uint64_t before = host.ops->now(host.ctx);
        uint32_t v = 0xdeadbeef;
        int rc = 0;
        uint64_t waited = 0;
        switch (i % 4) {
        case 0: rc = host.ops->mmio_read(host.ctx, 4 * i, &v); break;
        case 1: rc = host.ops->mmio_write(host.ctx, 4 * i, i); break;
        case 2: waited = host.ops->wait(host.ctx, 100 + i, i & 4); break;
        case 3: (void)host.ops->now(host.ctx); break;
        }
        if (!was) {
            if ((i % 4 == 0 || i % 4 == 1) && rc != -ENOTCONN)
                die("step %u on a disconnected client returned %d, expected -ENOTCONN", i, rc);
            if (i % 4 == 0 && v != 0)
                die("a read on a disconnected client gave 0x%x, expected 0", v);
            if (i % 4 == 2 && (waited != 100 + i || host.ops->now(host.ctx) != before + 100 + i))
                die("a wait of %u cycles on a disconnected client passed %llu, the clock moved %llu", 100 + i,
                    (unsigned long long)waited, (unsigned long long)(host.ops->now(host.ctx) - before));
        }
        if (hca_client_irq(cl) != 0 && hca_client_irq(cl) != 1)
            die("interrupt level %d", hca_client_irq(cl));
    }
}

/* ---------------------------------------------------------------- seeds */

/* A server that answers the script's first requests, with DMA and an
 * interrupt on the way; and one whose DMA requests name bad lengths. */
static void write_seeds(const char *dir)
{
    static uint8_t b[4096];
    hca_wire_hello_reply_t hello = {HCA_WIRE_VERSION, 0, 1000, "model"};
    hca_wire_mmio_t mmio = {0, 0x1234, 0, 0};
    hca_wire_time_t t = {100, 1100};
    hca_wire_irq_t irq = {1, 0, 1050};
    hca_wire_dma_t rd = {0x1000, 64, 0}, huge = {0x1000, HCA_WIRE_DMA_MAX + 1, 0};
    struct {
        hca_wire_dma_t d;
        uint8_t data[16];
    } wr = {{0x2000, 16, 0}, {1, 2, 3}};
    size_t n = 0;
    n += fuzz_record_put(b + n, 1, HCA_WIRE_HELLO | HCA_WIRE_REPLY, 1, &hello, sizeof hello);
    n += fuzz_record_put(b + n, 1, HCA_WIRE_MMIO_READ | HCA_WIRE_REPLY, 2, &mmio, sizeof mmio);
    n += fuzz_record_put(b + n, 1, HCA_WIRE_DMA_READ, 1, &rd, sizeof rd);
    n += fuzz_record_put(b + n, 1, HCA_WIRE_DMA_WRITE, 2, &wr, sizeof wr);
    n += fuzz_record_put(b + n, 1, HCA_WIRE_MMIO_WRITE | HCA_WIRE_REPLY, 3, &mmio, sizeof mmio);
    n += fuzz_record_put(b + n, 1, HCA_WIRE_IRQ, 0, &irq, sizeof irq);
    n += fuzz_record_put(b + n, 1, HCA_WIRE_WAIT | HCA_WIRE_REPLY, 4, &t, sizeof t);
    const char *files[] = {"server_session", "server_bad_dma"};
    for (int f = 0; f < 2; f++) {
        if (f == 1) {
            n = fuzz_record_put(b, 1, HCA_WIRE_HELLO | HCA_WIRE_REPLY, 1, &hello, sizeof hello);
            n += fuzz_record_put(b + n, 1, HCA_WIRE_DMA_READ, 1, &huge, sizeof huge);
            n += fuzz_record_put(b + n, 1, HCA_WIRE_MMIO_READ | HCA_WIRE_REPLY, 2, &mmio, sizeof mmio);
        }
        fuzz_write_seed("client", dir, files[f], b, n);
    }
}

static void cleanup(void)
{
    if (listen_fd >= 0)
        close(listen_fd);
    unlink(sock_path);
    rmdir(sock_dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    if (getenv("HCASIM_FUZZ_CLIENT_SEEDS")) {
        write_seeds(getenv("HCASIM_FUZZ_CLIENT_SEEDS"));
        exit(0);
    }
    snprintf(sock_dir, sizeof sock_dir, "/tmp/hcasim-fuzz-client.XXXXXX");
    if (!mkdtemp(sock_dir))
        die("mkdtemp: %s", strerror(errno));
    snprintf(sock_path, sizeof sock_path, "%s/s", sock_dir);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", sock_path);
    listen_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (listen_fd < 0 || bind(listen_fd, (struct sockaddr *)&a, sizeof a) || listen(listen_fd, 1))
        die("listen on %s: %s", sock_path, strerror(errno));
    atexit(cleanup);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fake_server_t s = {data, size};
    pthread_t th;
    if (pthread_create(&th, NULL, serve, &s))
        die("pthread_create");
    hca_client_t *cl = NULL;
    char err[256];
    if (!hca_client_connect(&cl, sock_path, err, sizeof err)) {
        script(cl);
        hca_client_close(cl);
    }
    pthread_join(th, NULL);
    return 0;
}
