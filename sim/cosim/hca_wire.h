/* hca_wire.h — the socket protocol between `hcasim serve` (the device in its
 * own process) and a client that runs the driver (hca_client.h): the driver's
 * host boundary (driver/hca_host.h) carried over a Unix SOCK_SEQPACKET socket,
 * with the device's DMA coming back into the client's memory. docs/cosim.md
 * is the prose; this header is the definition.
 *
 * One message per packet (SOCK_SEQPACKET keeps the boundaries, so a bad
 * message never desynchronizes the next). Every message starts with
 * hca_wire_hdr_t; all fields are in the machine's byte order (both ends are
 * on one machine). The receiver checks, in order: at least a header's bytes,
 * len equal to the bytes received, version, a known type, the payload size
 * that type has. A message that fails is answered HCA_WIRE_ERROR (its seq and
 * type echoed) and dropped; the server keeps serving.
 *
 * Flow: the client sends a request and waits for its reply (type | REPLY,
 * same seq). While serving it the server may send, any number of times:
 * DMA_READ / DMA_WRITE (a request of the server's; the client answers with
 * type | REPLY and the same seq before anything else) and IRQ (a
 * notification, no answer: the host interrupt line's new level, sent before
 * the reply whenever it differs from the last level told). HELLO must come
 * first on a connection; each connection gets a freshly booted device, gone
 * when the connection closes. When that device cannot start, every request
 * of the connection is answered ERROR with the reason.
 */
#ifndef HCA_WIRE_H
#define HCA_WIRE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HCA_WIRE_VERSION 1u
/** Bytes of DMA data one message carries at most (a longer access is split). */
#define HCA_WIRE_DMA_MAX 65536u
/** The largest message: a DMA message with HCA_WIRE_DMA_MAX bytes. */
#define HCA_WIRE_MSG_MAX (sizeof(hca_wire_hdr_t) + sizeof(hca_wire_dma_t) + HCA_WIRE_DMA_MAX)

typedef struct hca_wire_hdr {
    uint32_t len;     /**< bytes of the whole message, this header included */
    uint16_t version; /**< HCA_WIRE_VERSION */
    uint16_t type;    /**< hca_wire_type_t, | HCA_WIRE_REPLY in a reply */
    uint32_t seq;     /**< chosen by the requester, echoed in the reply */
    uint32_t rsvd;    /**< 0 */
} hca_wire_hdr_t;

typedef enum hca_wire_type {
    /* client -> server */
    HCA_WIRE_HELLO = 1,       /**< hca_wire_hello_t -> hca_wire_hello_reply_t */
    HCA_WIRE_MMIO_READ = 2,   /**< hca_wire_mmio_t (val 0) -> hca_wire_mmio_t (rc, val) */
    HCA_WIRE_MMIO_WRITE = 3,  /**< hca_wire_mmio_t -> hca_wire_mmio_t (rc) */
    HCA_WIRE_WAIT = 4,        /**< hca_wire_wait_t -> hca_wire_time_t (cycles passed, now) */
    HCA_WIRE_NOW = 5,         /**< nothing -> hca_wire_time_t (0, now) */
    /* server -> client, while a request is served */
    HCA_WIRE_DMA_READ = 16,   /**< hca_wire_dma_t -> hca_wire_dma_t (rc) + len bytes (none when rc) */
    HCA_WIRE_DMA_WRITE = 17,  /**< hca_wire_dma_t + len bytes -> hca_wire_dma_t (rc) */
    HCA_WIRE_IRQ = 18,        /**< hca_wire_irq_t, no reply */
    /* either way */
    HCA_WIRE_ERROR = 31,      /**< hca_wire_error_t: the message (seq, type) was refused */
} hca_wire_type_t;
#define HCA_WIRE_REPLY 0x8000u

typedef struct hca_wire_hello {
    uint32_t version; /**< the client's HCA_WIRE_VERSION */
    uint32_t rsvd;
} hca_wire_hello_t;

typedef struct hca_wire_hello_reply {
    uint32_t version;   /**< the server's */
    uint32_t irq;       /**< the interrupt line's level now */
    uint64_t now;       /**< the device's cycle (its firmware has booted) */
    char engine[16];    /**< "rtl", "model" (NUL-terminated) */
} hca_wire_hello_reply_t;

typedef struct hca_wire_mmio {
    uint32_t offset; /**< BAR0 offset */
    uint32_t val;
    int32_t rc;      /**< reply: 0 or a negative errno (hca_host.h's mmio_*) */
    uint32_t rsvd;
} hca_wire_mmio_t;

typedef struct hca_wire_wait {
    uint64_t max_cycles;
    uint32_t wake_on_irq;
    uint32_t rsvd;
} hca_wire_wait_t;

typedef struct hca_wire_time {
    uint64_t cycles; /**< cycles that passed (WAIT) */
    uint64_t now;    /**< the device's cycle after */
} hca_wire_time_t;

typedef struct hca_wire_dma {
    uint64_t addr; /**< bus address in the client's memory */
    uint32_t len;  /**< 1..HCA_WIRE_DMA_MAX */
    int32_t rc;    /**< reply: 0 or -EFAULT (some byte not there: nothing moved) */
} hca_wire_dma_t;

typedef struct hca_wire_irq {
    uint32_t level;
    uint32_t rsvd;
    uint64_t cycle; /**< the device's cycle when told */
} hca_wire_irq_t;

typedef struct hca_wire_error {
    int32_t code;      /**< negative errno: -EPROTO (malformed), -EBADMSG (bad length), -EPROTONOSUPPORT (version), -ENOSYS (type) */
    uint16_t type;     /**< the refused message's type (0 when it had no header) */
    uint16_t rsvd;
    char msg[120];     /**< why, NUL-terminated */
} hca_wire_error_t;

/** Check a received message of n bytes (the checks above, in that order):
 *  0, or a negative errno with err filled for the HCA_WIRE_ERROR answer. */
int hca_wire_check(const void *buf, size_t n, hca_wire_error_t *err);

#ifdef __cplusplus
}
#endif
#endif /* HCA_WIRE_H */
