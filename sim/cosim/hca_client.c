/* hca_client.c — see hca_client.h. One request in flight at a time (the
 * driver is single-threaded behind hca_host.h); while waiting for its reply
 * the client serves the server's DMA requests and notes IRQ levels. */
#include "hca_client.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "hca_wire.h"

struct hca_client {
    int fd;              /* -1: disconnected */
    hostmem_t *mem;
    uint32_t seq;
    int irq;
    uint64_t now;        /* the last cycle the server told; runs on locally once disconnected */
    char engine[16];
    char last_error[160];
    hca_client_stats_t st;
    uint8_t buf[HCA_WIRE_MSG_MAX + 1]; /* one message in or out (+1: a longer one shows as too long) */
    uint8_t dma[HCA_WIRE_DMA_MAX];     /* a DMA read's data */
};

static void drop(hca_client_t *cl)
{
    if (cl->fd >= 0)
        close(cl->fd);
    cl->fd = -1;
}

static int send_msg(hca_client_t *cl, unsigned type, uint32_t seq, const void *p, size_t n, const void *data,
                    size_t dlen)
{
    hca_wire_hdr_t h = {(uint32_t)(sizeof h + n + dlen), HCA_WIRE_VERSION, (uint16_t)type, seq, 0};
    memcpy(cl->buf, &h, sizeof h);
    memcpy(cl->buf + sizeof h, p, n);
    if (dlen)
        memcpy(cl->buf + sizeof h + n, data, dlen);
    if (send(cl->fd, cl->buf, h.len, MSG_NOSIGNAL) != (ssize_t)h.len) {
        drop(cl);
        return -ENOTCONN;
    }
    return 0;
}

/* Answer one server request (DMA) or note a notification in cl->buf. */
static void serve(hca_client_t *cl, const hca_wire_hdr_t *h)
{
    hca_wire_dma_t d;
    if (h->type == HCA_WIRE_IRQ) {
        hca_wire_irq_t q;
        memcpy(&q, cl->buf + sizeof *h, sizeof q);
        cl->irq = q.level != 0;
        cl->st.irqs++;
        return;
    }
    memcpy(&d, cl->buf + sizeof *h, sizeof d);
    if (h->type == HCA_WIRE_DMA_WRITE) {
        d.rc = hostmem_write(cl->mem, d.addr, cl->buf + sizeof *h + sizeof d, d.len);
        cl->st.dma_writes++;
        cl->st.dma_bytes += d.len;
        send_msg(cl, HCA_WIRE_DMA_WRITE | HCA_WIRE_REPLY, h->seq, &d, sizeof d, NULL, 0);
        return;
    }
    /* DMA_READ: the data follows the answer's fields (none on a fault) */
    uint8_t *data = cl->dma;
    d.rc = hostmem_read(cl->mem, d.addr, data, d.len); /* len <= HCA_WIRE_DMA_MAX: checked */
    cl->st.dma_reads++;
    cl->st.dma_bytes += d.len;
    send_msg(cl, HCA_WIRE_DMA_READ | HCA_WIRE_REPLY, h->seq, &d, sizeof d, data, d.rc ? 0 : d.len);
}

/* Send request type with payload p, serve the server until its reply; the
 * reply's payload (rlen bytes) into r. 0, -ENOTCONN, or the server's error code. */
static int request(hca_client_t *cl, unsigned type, const void *p, size_t n, void *r, size_t rlen)
{
    if (cl->fd < 0)
        return -ENOTCONN;
    const uint32_t seq = ++cl->seq;
    cl->st.requests++;
    int rc = send_msg(cl, type, seq, p, n, NULL, 0);
    while (!rc) {
        ssize_t got = recv(cl->fd, cl->buf, sizeof cl->buf, MSG_TRUNC);
        if (got <= 0) {
            drop(cl);
            return -ENOTCONN;
        }
        hca_wire_error_t e;
        if (hca_wire_check(cl->buf, (size_t)got > sizeof cl->buf ? sizeof cl->buf : (size_t)got, &e)) {
            /* the server broke the protocol: nothing it says can be trusted */
            snprintf(cl->last_error, sizeof cl->last_error, "from the server: %s", e.msg);
            drop(cl);
            return -EPROTO;
        }
        hca_wire_hdr_t h;
        memcpy(&h, cl->buf, sizeof h);
        if (h.type == (type | HCA_WIRE_REPLY) && h.seq == seq) {
            memcpy(r, cl->buf + sizeof h, rlen);
            return 0;
        }
        if (h.type == HCA_WIRE_ERROR && h.seq == seq) {
            memcpy(&e, cl->buf + sizeof h, sizeof e);
            e.msg[sizeof e.msg - 1] = 0;
            snprintf(cl->last_error, sizeof cl->last_error, "%s", e.msg);
            return e.code ? e.code : -EPROTO;
        }
        if (h.type == HCA_WIRE_DMA_READ || h.type == HCA_WIRE_DMA_WRITE || h.type == HCA_WIRE_IRQ)
            serve(cl, &h);
        else {
            snprintf(cl->last_error, sizeof cl->last_error, "unexpected message type %u", h.type);
            drop(cl);
            return -EPROTO;
        }
    }
    return rc;
}

int hca_client_connect(hca_client_t **out, const char *path, char *err, size_t errlen)
{
    *out = NULL;
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof a.sun_path) {
        if (err)
            snprintf(err, errlen, "%s: path too long for a Unix socket", path);
        return -ENAMETOOLONG;
    }
    strcpy(a.sun_path, path);
    hca_client_t *cl = calloc(1, sizeof *cl);
    if (!cl || hostmem_create(&cl->mem)) {
        free(cl);
        if (err)
            snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    cl->fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (cl->fd < 0 || connect(cl->fd, (struct sockaddr *)&a, sizeof a)) {
        int rc = -errno;
        if (err)
            snprintf(err, errlen, "%s: %s", path, strerror(errno));
        hca_client_close(cl);
        return rc;
    }
    hca_wire_hello_t hi = {HCA_WIRE_VERSION, 0};
    hca_wire_hello_reply_t r;
    int rc = request(cl, HCA_WIRE_HELLO, &hi, sizeof hi, &r, sizeof r);
    if (rc) {
        if (err)
            snprintf(err, errlen, "%s: HELLO: %s%s%s", path, strerror(-rc), cl->last_error[0] ? ": " : "",
                     cl->last_error);
        hca_client_close(cl);
        return rc;
    }
    cl->irq = r.irq != 0;
    cl->now = r.now;
    memcpy(cl->engine, r.engine, sizeof cl->engine);
    cl->engine[sizeof cl->engine - 1] = 0;
    *out = cl;
    return 0;
}

void hca_client_close(hca_client_t *cl)
{
    if (!cl)
        return;
    drop(cl);
    hostmem_destroy(cl->mem);
    free(cl);
}

static int c_mmio_read(void *ctx, uint32_t off, uint32_t *val)
{
    hca_wire_mmio_t m = {off, 0, 0, 0};
    int rc = request(ctx, HCA_WIRE_MMIO_READ, &m, sizeof m, &m, sizeof m);
    *val = rc ? 0 : m.val;
    return rc ? rc : m.rc;
}

static int c_mmio_write(void *ctx, uint32_t off, uint32_t val)
{
    hca_wire_mmio_t m = {off, val, 0, 0};
    int rc = request(ctx, HCA_WIRE_MMIO_WRITE, &m, sizeof m, &m, sizeof m);
    return rc ? rc : m.rc;
}

static int c_alloc(void *ctx, uint64_t size, uint64_t align, uint64_t *a)
{
    return hostmem_alloc(((hca_client_t *)ctx)->mem, size, align, a);
}
static int c_free(void *ctx, uint64_t a, uint64_t size) { return hostmem_unmap(((hca_client_t *)ctx)->mem, a, size); }
static int c_read(void *ctx, uint64_t a, void *buf, size_t len)
{
    return hostmem_read(((hca_client_t *)ctx)->mem, a, buf, len);
}
static int c_write(void *ctx, uint64_t a, const void *buf, size_t len)
{
    return hostmem_write(((hca_client_t *)ctx)->mem, a, buf, len);
}

static uint64_t c_wait(void *ctx, uint64_t max_cycles, int wake_on_irq)
{
    hca_client_t *cl = ctx;
    hca_wire_wait_t w = {max_cycles, (uint32_t)(wake_on_irq != 0), 0};
    hca_wire_time_t t;
    if (request(cl, HCA_WIRE_WAIT, &w, sizeof w, &t, sizeof t)) {
        cl->now += max_cycles; /* gone: time runs on, so timeouts end */
        return max_cycles;
    }
    cl->now = t.now;
    return t.cycles;
}

/* The device's clock moves only inside WAIT (MMIO takes no device time,
 * hca_host.h), so the cycle its last answer told is now: no round trip. */
static uint64_t c_now(void *ctx) { return ((hca_client_t *)ctx)->now; }

static const hca_host_ops_t client_ops = {c_mmio_read, c_mmio_write, c_alloc, c_free, c_read, c_write, c_wait, c_now};

hca_host_t hca_client_host(hca_client_t *cl) { return (hca_host_t){&client_ops, cl}; }
hostmem_t *hca_client_mem(hca_client_t *cl) { return cl->mem; }
int hca_client_irq(const hca_client_t *cl) { return cl->irq; }
const char *hca_client_engine(const hca_client_t *cl) { return cl->engine; }
int hca_client_connected(const hca_client_t *cl) { return cl->fd >= 0; }
const char *hca_client_last_error(const hca_client_t *cl) { return cl->last_error; }
void hca_client_get_stats(const hca_client_t *cl, hca_client_stats_t *st) { *st = cl->st; }
