/* hca_evt.h — C twin of rtl/hca_evt.sv: the engine -> firmware
 * memory-management event queue (regs evt) with its DONE broadcast.
 * Conventions: model/m_prim.h. */
#ifndef HCA_EVT_H
#define HCA_EVT_H

#include <stdint.h>

#include "hca_abi.h"
#include "m_prim.h"

/* Vector ports [1:0]: bit i = producer i (0 requester, 1 responder); evt_i's
 * two events are evt[0], evt[1]. */
typedef struct hca_evt_io {
    /* producers */
    uint32_t evt_valid;        /**< in [1:0] */
    uint32_t evt_ready;        /**< out [1:0] */
    hca_fw_event_t evt[2];     /**< in */
    /* firmware register block (fw_addr = offset in the block) */
    uint8_t fw_valid;          /**< in */
    uint8_t fw_write;          /**< in */
    uint32_t fw_addr;          /**< in [5:0] (higher bits ignored) */
    uint32_t fw_wdata;         /**< in */
    uint8_t fw_rvalid;         /**< out */
    uint32_t fw_rdata;         /**< out */
    /* DONE, to every producer for one cycle */
    uint8_t done_valid;        /**< out */
    uint32_t done_tag;         /**< out [EVT_DONE_TAG_WIDTH-1:0] */
    uint32_t done_status;      /**< out [7:0] */
    uint8_t irq;               /**< out: an event is pending */
    uint8_t inv_ok;            /**< in: the translation unit's MPT verdict on this cycle's head, as a word-0
                                    read of an invalidation is answered with it (the RTL's inv_ok_i, which
                                    xlate_unit registers: it arrives with the answer) */
} hca_evt_io_t;

typedef struct hca_evt {
    uint32_t depth;            /**< parameter DEPTH */
    m_arb_t arb;               /**< u_arb */
    m_fifo_t fifo;             /**< u_fifo of hca_fw_event_t */
    hca_fw_event_t *mem;       /**< its storage (kept across reset) */
    uint8_t rvalid;            /**< fw_rvalid_o */
    uint32_t rdata;            /**< fw_rdata_o */
    uint8_t done_valid;        /**< done_valid_o */
    uint16_t done_tag;
    uint8_t done_status;
} hca_evt_t;

/* depth: HCA_EVT_QUEUE_DEPTH in hca_core; a power of two in [2, 128].
 * 0, -EINVAL or -ENOMEM. */
int hca_evt_init(hca_evt_t *m, unsigned depth);
void hca_evt_free(hca_evt_t *m);
void hca_evt_reset(hca_evt_t *m);
void hca_evt_comb(const hca_evt_t *m, hca_evt_io_t *io, uint64_t now);
void hca_evt_edge(hca_evt_t *m, const hca_evt_io_t *io, uint64_t now);
uint64_t hca_evt_quiet_until(const hca_evt_t *m, uint64_t now);

#endif /* HCA_EVT_H */
