/* hca_wire.c — the checks every received message goes through, on both ends
 * of the socket (hca_wire.h says which, in which order). */
#include "hca_wire.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* The payload size type has; -1: no such type. A DMA message's data part is
 * checked against its own len field by hca_wire_check. */
static long fixed_payload(unsigned type)
{
    switch (type) {
    case HCA_WIRE_HELLO: return sizeof(hca_wire_hello_t);
    case HCA_WIRE_HELLO | HCA_WIRE_REPLY: return sizeof(hca_wire_hello_reply_t);
    case HCA_WIRE_MMIO_READ:
    case HCA_WIRE_MMIO_WRITE:
    case HCA_WIRE_MMIO_READ | HCA_WIRE_REPLY:
    case HCA_WIRE_MMIO_WRITE | HCA_WIRE_REPLY: return sizeof(hca_wire_mmio_t);
    case HCA_WIRE_WAIT: return sizeof(hca_wire_wait_t);
    case HCA_WIRE_NOW: return 0;
    case HCA_WIRE_WAIT | HCA_WIRE_REPLY:
    case HCA_WIRE_NOW | HCA_WIRE_REPLY: return sizeof(hca_wire_time_t);
    case HCA_WIRE_DMA_READ:
    case HCA_WIRE_DMA_WRITE | HCA_WIRE_REPLY: return sizeof(hca_wire_dma_t);
    case HCA_WIRE_DMA_WRITE:
    case HCA_WIRE_DMA_READ | HCA_WIRE_REPLY: return sizeof(hca_wire_dma_t); /* + data, below */
    case HCA_WIRE_IRQ: return sizeof(hca_wire_irq_t);
    case HCA_WIRE_ERROR: return sizeof(hca_wire_error_t);
    default: return -1;
    }
}

int hca_wire_check(const void *buf, size_t n, hca_wire_error_t *err)
{
    hca_wire_hdr_t h;
    memset(err, 0, sizeof *err);
    if (n < sizeof h) {
        err->code = -EPROTO;
        snprintf(err->msg, sizeof err->msg, "truncated: %zu bytes, a header is %zu", n, sizeof h);
        return err->code;
    }
    memcpy(&h, buf, sizeof h);
    err->type = h.type;
    if (h.len != n) {
        err->code = -EBADMSG;
        snprintf(err->msg, sizeof err->msg, "length field says %u bytes, the message has %zu%s", h.len, n,
                 h.len > n ? " (truncated)" : "");
        return err->code;
    }
    if (h.version != HCA_WIRE_VERSION) {
        err->code = -EPROTONOSUPPORT;
        snprintf(err->msg, sizeof err->msg, "version %u, this end speaks %u", h.version, HCA_WIRE_VERSION);
        return err->code;
    }
    const long want = fixed_payload(h.type);
    if (want < 0) {
        err->code = -ENOSYS;
        snprintf(err->msg, sizeof err->msg, "unknown message type %u", h.type);
        return err->code;
    }
    size_t have = n - sizeof h, need = (size_t)want;
    const unsigned base = h.type & ~HCA_WIRE_REPLY;
    if ((base == HCA_WIRE_DMA_READ || base == HCA_WIRE_DMA_WRITE) && have >= need) {
        /* every DMA message names 1..HCA_WIRE_DMA_MAX bytes: the receiver's
         * buffers are that large (a DMA_READ request too, not only the
         * messages that carry the data) */
        hca_wire_dma_t d;
        memcpy(&d, (const char *)buf + sizeof h, sizeof d);
        if (d.len < 1 || d.len > HCA_WIRE_DMA_MAX) {
            err->code = -EBADMSG;
            snprintf(err->msg, sizeof err->msg, "DMA of %u bytes, 1..%u allowed", d.len, HCA_WIRE_DMA_MAX);
            return err->code;
        }
        if (h.type == HCA_WIRE_DMA_WRITE || (h.type == (HCA_WIRE_DMA_READ | HCA_WIRE_REPLY) && d.rc == 0))
            need += d.len; /* the messages that carry the data */
    }
    if (have != need) {
        err->code = -EBADMSG;
        snprintf(err->msg, sizeof err->msg, "type %u carries %zu payload bytes, %zu given", h.type, need, have);
        return err->code;
    }
    return 0;
}
