/* fuzz_wire.c — libFuzzer harness of the co-simulation socket protocol
 * (sim/cosim/hca_wire.h) as `hcasim serve` speaks it: random messages from a
 * client into a real server session (hca_serve_session_run in its own
 * thread) over a SOCK_SEQPACKET socket pair, with a live device behind it.
 *
 * Input: records, each
 *   mode (1 byte), length (2, little-endian, at most MAX_MSG), that many bytes:
 *   one message as sent. mode bit 0 frames it (the header's len becomes the
 *   message's size, version 1, so the fuzzer spends itself on types and
 *   payloads); bit 1 answers the server's DMA requests during this record with
 *   -EFAULT instead of data. An empty record is not sent (an empty
 *   SOCK_SEQPACKET message reads as the end of the connection).
 *   A WAIT's max_cycles is clamped to MAX_WAIT so one input stays short.
 * Oracle, per message: exactly one answer with its seq — HCA_WIRE_ERROR with
 *   hca_wire_check's code for a malformed one; for a well-formed request the
 *   server serves (HELLO first, then MMIO_READ/WRITE, WAIT, NOW) its REPLY
 *   type, or ERROR (HELLO of another version, a request before HELLO); for
 *   anything else ERROR. Every message the server sends passes hca_wire_check
 *   and IRQ levels are 0 or 1; the server's DMA requests on the way are
 *   answered. Per input: a NOW still answered, and the session ends when the
 *   client shuts its side.
 * The device persists across inputs (a connection's device is fresh in
 * `hcasim serve`; booting one per input would cost 100x) and is re-created
 * every RECREATE inputs. HCASIM_FUZZ_ENGINE=rtl runs the RTL engine.
 * HCASIM_FUZZ_WIRE_SEEDS=DIR [HCASIM_FUZZ_WIRE_DICT=FILE] writes the seed
 * sessions to DIR (and the dictionary: header words of every type, from
 * hca_wire.h) and exits.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "fuzz_records.h"
#include "hca_abi.h"
#include "hca_serve.h"
#include "hca_wire.h"

#define MAX_MSG 4096u
#define MAX_WAIT 16384u
#define RECREATE 2000u
#define ANSWER_TIMEOUT_S 20

static hca_serve_session_t *session;
static unsigned inputs;
static uint8_t rx[HCA_WIRE_MSG_MAX + 1];
static uint8_t tx[HCA_WIRE_MSG_MAX];

#define die(...) fuzz_fail("wire", __VA_ARGS__)

static hca_dev_config_t config(void)
{
    const char *e = getenv("HCASIM_FUZZ_ENGINE");
    hca_dev_config_t cfg = {.engine = e && !strcmp(e, "rtl") ? DEV_ENGINE_RTL : DEV_ENGINE_MODEL};
    return cfg;
}

static void open_session(void)
{
    char err[512] = "";
    hca_dev_config_t cfg = config();
    int rc = hca_serve_session_create(&session, &cfg, err, sizeof err);
    if (rc)
        die("the device could not start: %s (%d)", err, rc);
}

static void close_session(void)
{
    hca_serve_session_destroy(session);
    session = NULL;
}

/* ---------------------------------------------------------------- seeds */

/* Sessions a driver holds: HELLO, register reads and writes, waits, the
 * clock; and the malformed messages the protocol names. */
static void write_seeds(const char *dir)
{
    static uint8_t b[8192];
    const hca_wire_hello_t hello = {HCA_WIRE_VERSION, 0};
    const hca_wire_wait_t wait = {4096, 1, 0};
    size_t n = 0;
    n += fuzz_record_put(b + n, 1, HCA_WIRE_HELLO, 1, &hello, sizeof hello);
    for (uint32_t off = 0; off < 0x100; off += 4) {
        hca_wire_mmio_t m = {off, 0, 0, 0};
        n += fuzz_record_put(b + n, 1, HCA_WIRE_MMIO_READ, 2 + off, &m, sizeof m);
    }
    n += fuzz_record_put(b + n, 1, HCA_WIRE_WAIT, 900, &wait, sizeof wait);
    n += fuzz_record_put(b + n, 1, HCA_WIRE_NOW, 901, NULL, 0);
    fuzz_write_seed("wire", dir, "session_reads", b, n);

    n = fuzz_record_put(b, 1, HCA_WIRE_HELLO, 1, &hello, sizeof hello);
    for (uint32_t off = 0; off < 0x40; off += 4) {
        hca_wire_mmio_t m = {off, 0xffffffffu, 0, 0};
        n += fuzz_record_put(b + n, 1, HCA_WIRE_MMIO_WRITE, 2 + off, &m, sizeof m);
    }
    n += fuzz_record_put(b + n, 1, HCA_WIRE_WAIT, 100, &wait, sizeof wait);
    fuzz_write_seed("wire", dir, "session_writes", b, n);

    const hca_wire_hello_t bad_version = {HCA_WIRE_VERSION + 1, 0};
    const hca_wire_dma_t dma = {0x1000, 16, 0};
    n = fuzz_record_put(b, 1, HCA_WIRE_NOW, 7, NULL, 0);                              /* before HELLO */
    n += fuzz_record_put(b + n, 1, HCA_WIRE_HELLO, 8, &bad_version, sizeof bad_version);
    n += fuzz_record_put(b + n, 0, HCA_WIRE_HELLO, 9, &hello, sizeof hello - 1);       /* short payload, len as sent */
    n += fuzz_record_put(b + n, 1, HCA_WIRE_HELLO, 10, &hello, sizeof hello);
    n += fuzz_record_put(b + n, 1, HCA_WIRE_DMA_READ | HCA_WIRE_REPLY, 11, &dma, sizeof dma); /* no such request */
    n += fuzz_record_put(b + n, 1, HCA_WIRE_IRQ, 12, &dma, sizeof dma);
    n += fuzz_record_put(b + n, 1, 77, 13, NULL, 0);
    fuzz_write_seed("wire", dir, "session_refusals", b, n);
}

static void write_dict(const char *path)
{
    static const unsigned types[] = {HCA_WIRE_HELLO,     HCA_WIRE_MMIO_READ, HCA_WIRE_MMIO_WRITE, HCA_WIRE_WAIT,
                                     HCA_WIRE_NOW,       HCA_WIRE_DMA_READ,  HCA_WIRE_DMA_WRITE,  HCA_WIRE_IRQ,
                                     HCA_WIRE_ERROR};
    FILE *f = fopen(path, "w");
    if (!f)
        die("cannot write %s", path);
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        for (unsigned reply = 0; reply <= HCA_WIRE_REPLY; reply += HCA_WIRE_REPLY) {
            const uint16_t t = (uint16_t)(types[i] | reply);
            /* version and type as they sit at offset 4 of the header */
            fprintf(f, "\"\\x%02x\\x%02x\\x%02x\\x%02x\"\n", HCA_WIRE_VERSION & 0xff, HCA_WIRE_VERSION >> 8, t & 0xff,
                    t >> 8);
        }
    fprintf(f, "\"\\x00\\x00\\x01\\x00\"\n\"\\xff\\xff\\xff\\xff\"\n");
    if (fclose(f))
        die("cannot write %s", path);
}

/* ---------------------------------------------------------------- one input */

typedef struct server_arg {
    int fd;
} server_arg_t;

static void *server(void *p)
{
    hca_serve_session_run(session, ((server_arg_t *)p)->fd);
    return NULL;
}

static void send_raw(int fd, const void *m, size_t n, const char *what)
{
    if (send(fd, m, n, MSG_NOSIGNAL) != (ssize_t)n)
        die("%s: send of %zu bytes: %s", what, n, strerror(errno));
}

static void reply_dma(int fd, const hca_wire_hdr_t *h, const uint8_t *p, int fault)
{
    hca_wire_dma_t d;
    memcpy(&d, p, sizeof d);
    const int read = h->type == HCA_WIRE_DMA_READ;
    const size_t data = read && !fault ? d.len : 0;
    d.rc = fault ? -EFAULT : 0;
    hca_wire_hdr_t r = {(uint32_t)(sizeof r + sizeof d + data), HCA_WIRE_VERSION, (uint16_t)(h->type | HCA_WIRE_REPLY),
                        h->seq, 0};
    memcpy(tx, &r, sizeof r);
    memcpy(tx + sizeof r, &d, sizeof d);
    memset(tx + sizeof r + sizeof d, 0x5a, data);
    send_raw(fd, tx, r.len, "DMA answer");
}

/* Read the server's messages until the answer to (seq, sent_type): serve its
 * DMA requests, check IRQs. Returns the answer's type. */
static unsigned await_answer(int fd, uint32_t seq, unsigned sent_type, int fault, int *irq, int32_t *err_code)
{
    for (;;) {
        ssize_t got = recv(fd, rx, sizeof rx, MSG_TRUNC);
        if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            die("no answer to message seq %u type %u within %d s: the server hangs", seq, sent_type, ANSWER_TIMEOUT_S);
        if (got <= 0)
            die("the server closed the connection while message seq %u type %u waited for its answer", seq, sent_type);
        if ((size_t)got > sizeof rx)
            die("the server sent %zd bytes, more than the largest message", got);
        hca_wire_error_t e;
        if (hca_wire_check(rx, (size_t)got, &e))
            die("the server sent a malformed message: %s", e.msg);
        hca_wire_hdr_t h;
        memcpy(&h, rx, sizeof h);
        const uint8_t *p = rx + sizeof h;
        switch (h.type) {
        case HCA_WIRE_DMA_READ:
        case HCA_WIRE_DMA_WRITE:
            reply_dma(fd, &h, p, fault);
            continue;
        case HCA_WIRE_IRQ: {
            hca_wire_irq_t q;
            memcpy(&q, p, sizeof q);
            if (q.level > 1)
                die("IRQ level %u", q.level);
            *irq = (int)q.level;
            continue;
        }
        default:
            break;
        }
        if (h.seq != seq)
            die("answer with seq %u type %u, expected the answer to seq %u type %u", h.seq, h.type, seq, sent_type);
        if (h.type == HCA_WIRE_ERROR) {
            hca_wire_error_t er;
            memcpy(&er, p, sizeof er);
            if (!memchr(er.msg, 0, sizeof er.msg) || !er.msg[0])
                die("ERROR answer to seq %u without a NUL-terminated reason", seq);
            *err_code = er.code;
        }
        return h.type;
    }
}

static int is_request(unsigned t)
{
    return t == HCA_WIRE_HELLO || t == HCA_WIRE_MMIO_READ || t == HCA_WIRE_MMIO_WRITE || t == HCA_WIRE_WAIT ||
           t == HCA_WIRE_NOW;
}

/* Send one message and hold the server to its answer. */
static void exchange(int fd, uint8_t *m, size_t n, int fault, int *hello, int *irq)
{
    hca_wire_hdr_t h = {0, 0, 0, 0, 0};
    if (n >= sizeof h)
        memcpy(&h, m, sizeof h);
    hca_wire_error_t want;
    const int bad = hca_wire_check(m, n, &want);
    send_raw(fd, m, n, "message");
    int32_t code = 0;
    const unsigned got = await_answer(fd, h.seq, h.type, fault, irq, &code);
    if (bad) {
        if (got != HCA_WIRE_ERROR || code != bad)
            die("malformed message (%s) seq %u answered type %u code %d, expected ERROR %d", want.msg, h.seq, got,
                code, bad);
        return;
    }
    if (!is_request(h.type) || (!*hello && h.type != HCA_WIRE_HELLO)) {
        if (got != HCA_WIRE_ERROR)
            die("message type %u seq %u (hello %d) answered type %u, expected ERROR", h.type, h.seq, *hello, got);
        return;
    }
    if (h.type == HCA_WIRE_HELLO) {
        hca_wire_hello_t hi;
        memcpy(&hi, m + sizeof h, sizeof hi);
        const unsigned want_type = hi.version == HCA_WIRE_VERSION ? (HCA_WIRE_HELLO | HCA_WIRE_REPLY) : HCA_WIRE_ERROR;
        if (got != want_type)
            die("HELLO version %u seq %u answered type %u, expected %u", hi.version, h.seq, got, want_type);
        if (got == (HCA_WIRE_HELLO | HCA_WIRE_REPLY))
            *hello = 1;
        return;
    }
    if (got != (h.type | HCA_WIRE_REPLY))
        die("request type %u seq %u answered type %u, expected its REPLY", h.type, h.seq, got);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *seeds = getenv("HCASIM_FUZZ_WIRE_SEEDS");
    if (seeds) {
        write_seeds(seeds);
        if (getenv("HCASIM_FUZZ_WIRE_DICT"))
            write_dict(getenv("HCASIM_FUZZ_WIRE_DICT"));
        exit(0);
    }
    open_session();
    atexit(close_session);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (++inputs % RECREATE == 0) {
        close_session();
        open_session();
    }
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
        die("socketpair: %s", strerror(errno));
    const struct timeval tmo = {ANSWER_TIMEOUT_S, 0};
    setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &tmo, sizeof tmo);
    server_arg_t arg = {sv[1]};
    pthread_t th;
    if (pthread_create(&th, NULL, server, &arg))
        die("pthread_create");

    int hello = 0, irq = 0;
    static uint8_t m[MAX_MSG];
    size_t at = 0;
    size_t n;
    uint8_t mode;
    while ((n = fuzz_record_next(data, size, &at, m, MAX_MSG, &mode))) {
        hca_wire_hdr_t h;
        if (n >= sizeof h + sizeof(hca_wire_wait_t)) {
            memcpy(&h, m, sizeof h);
            if (h.type == HCA_WIRE_WAIT) {
                hca_wire_wait_t w;
                memcpy(&w, m + sizeof h, sizeof w);
                w.max_cycles %= MAX_WAIT + 1;
                memcpy(m + sizeof h, &w, sizeof w);
            }
        }
        exchange(sv[0], m, n, mode & 2, &hello, &irq);
    }
    /* Still serving: the clock answers (or HELLO-first is still enforced). */
    uint8_t now[sizeof(hca_wire_hdr_t)];
    hca_wire_hdr_t h = {sizeof now, HCA_WIRE_VERSION, HCA_WIRE_NOW, 0xfeed, 0};
    memcpy(now, &h, sizeof h);
    exchange(sv[0], now, sizeof now, 0, &hello, &irq);

    shutdown(sv[0], SHUT_WR);
    pthread_join(th, NULL);
    close(sv[0]);
    close(sv[1]);
    return 0;
}
