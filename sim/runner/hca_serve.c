/* hca_serve.c — see hca_serve.h. One connection at a time: its device's bus
 * is the connection (every DMA becomes a DMA_READ/DMA_WRITE request to the
 * client, answered before the device goes on), BAR0 accesses and waits are
 * the client's requests, and the interrupt line's level is told whenever it
 * changed, before each reply. */
#include "hca_serve.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "hca_wire.h"

/* Cycles one piece of a WAIT steps before looking whether the client is still there. */
#define SERVE_WAIT_PIECE 65536u

typedef struct conn {
    int fd;
    int dead;      /* the client went away or broke the protocol mid-DMA */
    int hello;     /* HELLO received: requests are served */
    int irq_told;  /* the level the client last heard */
    uint32_t seq;  /* the server's own requests (DMA) */
    uint64_t requests, dma_msgs, errors;
    hca_dev_t *dev; /* everything above is per connection */
    uint8_t in[HCA_WIRE_MSG_MAX + 1]; /* +1: a longer message shows as too long */
    uint8_t out[HCA_WIRE_MSG_MAX];
} conn_t;

static int send_msg(conn_t *c, unsigned type, uint32_t seq, const void *p, size_t n, const void *data, size_t dlen)
{
    hca_wire_hdr_t h = {(uint32_t)(sizeof h + n + dlen), HCA_WIRE_VERSION, (uint16_t)type, seq, 0};
    if (c->dead)
        return -ENOTCONN;
    memcpy(c->out, &h, sizeof h);
    memcpy(c->out + sizeof h, p, n);
    if (dlen)
        memcpy(c->out + sizeof h + n, data, dlen);
    if (send(c->fd, c->out, h.len, MSG_NOSIGNAL) != (ssize_t)h.len) {
        c->dead = 1;
        return -ENOTCONN;
    }
    return 0;
}

static void send_error(conn_t *c, uint32_t seq, const hca_wire_error_t *e)
{
    c->errors++;
    send_msg(c, HCA_WIRE_ERROR, seq, e, sizeof *e, NULL, 0);
}

static void refuse(conn_t *c, uint32_t seq, unsigned type, int code, const char *why)
{
    hca_wire_error_t e;
    memset(&e, 0, sizeof e);
    e.code = code;
    e.type = (uint16_t)type;
    snprintf(e.msg, sizeof e.msg, "%s", why);
    send_error(c, seq, &e);
}

/* Receive one well-formed message into c->in (its size, > 0); a bad one is
 * answered HCA_WIRE_ERROR and skipped. 0: the client is gone. */
static size_t recv_msg(conn_t *c)
{
    while (!c->dead) {
        ssize_t got = recv(c->fd, c->in, sizeof c->in, MSG_TRUNC);
        if (got <= 0) {
            c->dead = 1;
            break;
        }
        size_t n = (size_t)got > sizeof c->in ? sizeof c->in : (size_t)got;
        hca_wire_error_t e;
        if (!hca_wire_check(c->in, n, &e))
            return n;
        hca_wire_hdr_t h = {0, 0, 0, 0, 0};
        if (n >= sizeof h)
            memcpy(&h, c->in, sizeof h);
        send_error(c, h.seq, &e);
    }
    return 0;
}

/* ---------------------------------------------------------------- the device's bus: the client's memory */

/* One DMA request to the client and its answer. A request of the client's
 * arriving meanwhile breaks the protocol (it must answer first): refused. */
static int dma(conn_t *c, unsigned type, uint64_t addr, void *buf, size_t len)
{
    hca_wire_dma_t d = {addr, (uint32_t)len, 0};
    const uint32_t seq = ++c->seq;
    c->dma_msgs++;
    if (send_msg(c, type, seq, &d, sizeof d, type == HCA_WIRE_DMA_WRITE ? buf : NULL,
                 type == HCA_WIRE_DMA_WRITE ? len : 0))
        return -EFAULT;
    while (recv_msg(c)) {
        hca_wire_hdr_t h;
        memcpy(&h, c->in, sizeof h);
        if (h.type == (type | HCA_WIRE_REPLY) && h.seq == seq) {
            memcpy(&d, c->in + sizeof h, sizeof d);
            if (d.rc)
                return -EFAULT;
            if (type == HCA_WIRE_DMA_READ) {
                if (d.len != len)
                    return -EFAULT;
                memcpy(buf, c->in + sizeof h + sizeof d, len);
            }
            return 0;
        }
        refuse(c, h.seq, h.type, -EPROTO, "the device waits for the answer to its DMA request");
    }
    return -EFAULT; /* the client is gone: a bus error for the device */
}

/* Accesses longer than a message carries are split; a fault in a later piece
 * leaves the earlier ones done (docs/cosim.md). */
static int dma_split(conn_t *c, unsigned type, uint64_t addr, uint8_t *buf, size_t len)
{
    for (size_t off = 0; off < len;) {
        size_t n = len - off < HCA_WIRE_DMA_MAX ? len - off : HCA_WIRE_DMA_MAX;
        int rc = dma(c, type, addr + off, buf + off, n);
        if (rc)
            return rc;
        off += n;
    }
    return 0;
}

static int bus_rd(void *ctx, uint64_t addr, void *buf, size_t len)
{
    return dma_split(ctx, HCA_WIRE_DMA_READ, addr, buf, len);
}

static int bus_wr(void *ctx, uint64_t addr, const void *buf, size_t len)
{
    return dma_split(ctx, HCA_WIRE_DMA_WRITE, addr, (uint8_t *)buf, len);
}

/* ---------------------------------------------------------------- requests */

static void tell_irq(conn_t *c)
{
    const int level = hca_dev_host_irq(c->dev) != 0;
    if (level == c->irq_told)
        return;
    hca_wire_irq_t q = {(uint32_t)level, 0, hca_dev_cycle(c->dev)};
    if (!send_msg(c, HCA_WIRE_IRQ, 0, &q, sizeof q, NULL, 0))
        c->irq_told = level;
}

static void serve_one(conn_t *c)
{
    hca_wire_hdr_t h;
    memcpy(&h, c->in, sizeof h);
    const uint8_t *p = c->in + sizeof h;
    const unsigned reply = h.type | HCA_WIRE_REPLY;
    c->requests++;
    if (h.type != HCA_WIRE_HELLO && !c->hello)
        return refuse(c, h.seq, h.type, -EPROTO, "HELLO first");
    switch (h.type) {
    case HCA_WIRE_HELLO: {
        hca_wire_hello_t hi;
        memcpy(&hi, p, sizeof hi);
        if (hi.version != HCA_WIRE_VERSION)
            return refuse(c, h.seq, h.type, -EPROTONOSUPPORT, "HELLO: the server speaks version 1");
        hca_wire_hello_reply_t r;
        memset(&r, 0, sizeof r);
        r.version = HCA_WIRE_VERSION;
        r.irq = (uint32_t)(hca_dev_host_irq(c->dev) != 0);
        r.now = hca_dev_cycle(c->dev);
        snprintf(r.engine, sizeof r.engine, "%s", hca_dev_engine_name(c->dev));
        c->hello = 1;
        c->irq_told = (int)r.irq;
        send_msg(c, reply, h.seq, &r, sizeof r, NULL, 0);
        return;
    }
    case HCA_WIRE_MMIO_READ:
    case HCA_WIRE_MMIO_WRITE: {
        hca_wire_mmio_t m;
        memcpy(&m, p, sizeof m);
        m.rc = h.type == HCA_WIRE_MMIO_READ ? hca_dev_mmio_read(c->dev, m.offset, &m.val)
                                            : hca_dev_mmio_write(c->dev, m.offset, m.val);
        tell_irq(c); /* a write to CAUSE or MASK moves the line */
        send_msg(c, reply, h.seq, &m, sizeof m, NULL, 0);
        return;
    }
    case HCA_WIRE_WAIT: {
        hca_wire_wait_t w;
        memcpy(&w, p, sizeof w);
        const hca_host_t host = hca_dev_host(c->dev); /* hca_host.h's wait, exactly ... */
        hca_wire_time_t t = {0, 0};
        while (t.cycles < w.max_cycles && !c->dead) { /* ... in pieces, to stop soon when the client is gone */
            const uint64_t left = w.max_cycles - t.cycles, k = left < SERVE_WAIT_PIECE ? left : SERVE_WAIT_PIECE;
            const uint64_t n = host.ops->wait(host.ctx, k, w.wake_on_irq != 0);
            t.cycles += n;
            if (n < k)
                break; /* woken by the interrupt */
        }
        t.now = hca_dev_cycle(c->dev);
        tell_irq(c);
        send_msg(c, reply, h.seq, &t, sizeof t, NULL, 0);
        return;
    }
    case HCA_WIRE_NOW: {
        hca_wire_time_t t = {0, hca_dev_cycle(c->dev)};
        send_msg(c, reply, h.seq, &t, sizeof t, NULL, 0);
        return;
    }
    default: /* a reply or notification no request of the server's asked for */
        return refuse(c, h.seq, h.type, -EPROTO, "not a request the server serves");
    }
}

/* ---------------------------------------------------------------- the socket */

static const char *sock_path; /* for the signal handler */

static void on_signal(int sig)
{
    (void)sig;
    if (sock_path)
        unlink(sock_path);
    _exit(0);
}

static int listen_on(const char *path, FILE *log)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    struct stat st;
    if (strlen(path) >= sizeof a.sun_path) {
        if (log)
            fprintf(log, "hcasim serve: --socket %s: path too long for a Unix socket\n", path);
        return -ENAMETOOLONG;
    }
    strcpy(a.sun_path, path);
    if (!lstat(path, &st)) { /* a stale socket of an earlier server goes; anything else stays */
        if (!S_ISSOCK(st.st_mode)) {
            if (log)
                fprintf(log, "hcasim serve: --socket %s: exists and is not a socket\n", path);
            return -EEXIST;
        }
        unlink(path);
    }
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) || listen(fd, 4)) {
        int rc = -errno;
        if (log)
            fprintf(log, "hcasim serve: --socket %s: %s\n", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return rc;
    }
    return fd;
}

/* A client whose device could not start: each of its requests is answered
 * with the reason until it goes. */
static void refuse_all(int fd, int rc, const char *why)
{
    conn_t *c = calloc(1, sizeof *c);
    if (!c)
        return;
    c->fd = fd;
    while (recv_msg(c)) {
        hca_wire_hdr_t h;
        memcpy(&h, c->in, sizeof h);
        refuse(c, h.seq, h.type, rc, why);
    }
    free(c);
}

/* ---------------------------------------------------------------- sessions */

struct hca_serve_session {
    conn_t c;
};

int hca_serve_session_create(hca_serve_session_t **out, const hca_dev_config_t *cfg, char *err, size_t errlen)
{
    static const bus_ops_t ops = {bus_rd, bus_wr, NULL};
    hca_serve_session_t *s = calloc(1, sizeof *s);
    *out = NULL;
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    s->c.fd = -1;
    s->c.dead = 1; /* no client yet: a DMA of the booting device is a bus error */
    int rc = hca_dev_create_on_bus(&s->c.dev, cfg, (bus_t){&ops, &s->c}, err, errlen);
    if (rc) {
        free(s);
        return rc;
    }
    *out = s;
    return 0;
}

void hca_serve_session_run(hca_serve_session_t *s, int fd)
{
    conn_t *c = &s->c;
    memset(c, 0, offsetof(conn_t, dev));
    c->fd = fd;
    while (recv_msg(c))
        serve_one(c);
    c->dead = 1;
}

hca_dev_t *hca_serve_session_dev(hca_serve_session_t *s)
{
    return s->c.dev;
}

void hca_serve_session_counts(const hca_serve_session_t *s, uint64_t *requests, uint64_t *dma_msgs, uint64_t *refused)
{
    *requests = s->c.requests;
    *dma_msgs = s->c.dma_msgs;
    *refused = s->c.errors;
}

void hca_serve_session_destroy(hca_serve_session_t *s)
{
    if (s) {
        hca_dev_destroy(s->c.dev);
        free(s);
    }
}

int hca_serve(const hca_serve_opts_t *o)
{
    FILE *log = o->log;
    int lfd = listen_on(o->path, log);
    if (lfd < 0)
        return lfd;
    sock_path = o->path;
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGPIPE, SIG_IGN);
    if (log) {
        fprintf(log, "hcasim serve: listening on %s (engine %s, protocol version %u)\n", o->path,
                dev_engine_name(o->cfg.engine), HCA_WIRE_VERSION);
        fflush(log);
    }
    for (unsigned n = 1; !o->clients || n <= o->clients; n++) {
        int fd = accept(lfd, NULL, NULL);
        if (fd < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        hca_serve_session_t *s;
        char err[512] = "";
        int rc = hca_serve_session_create(&s, &o->cfg, err, sizeof err);
        if (rc) { /* said, and every request of this client answered with the reason until it goes */
            char why[sizeof(((hca_wire_error_t *)0)->msg)];
            snprintf(why, sizeof why, "the device could not start: %s", err[0] ? err : strerror(-rc));
            if (log) {
                fprintf(log, "hcasim serve: client %u: the device could not start: %s\n", n,
                        err[0] ? err : strerror(-rc));
                fflush(log);
            }
            refuse_all(fd, rc, why);
            close(fd);
            continue;
        }
        if (log) {
            fprintf(log, "hcasim serve: client %u connected: a fresh %s device\n", n, hca_dev_engine_name(s->c.dev));
            fflush(log);
        }
        hca_serve_session_run(s, fd);
        if (log) {
            fprintf(log,
                    "hcasim serve: client %u gone after %" PRIu64 " requests, %" PRIu64 " DMA messages, %" PRIu64
                    " refused, at cycle %" PRIu64 "; its device dropped\n",
                    n, s->c.requests, s->c.dma_msgs, s->c.errors, hca_dev_cycle(s->c.dev));
            fflush(log);
        }
        hca_serve_session_destroy(s);
        close(fd);
    }
    close(lfd);
    unlink(o->path);
    sock_path = NULL;
    return 0;
}
