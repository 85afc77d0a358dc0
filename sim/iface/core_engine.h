/* core_engine.h — the device core (rtl/hca_core.sv: WQE engine, responder,
 * CQ writer, translation unit), one clock at a time. docs/engine.md is the
 * contract; the pins map one to one onto hca_core's ports.
 *
 * Struct-valued pins (dma_req, dma_rsp, tx, rx) hold the ABI structs whose
 * bytes, in address order, are the RTL port vectors (bit 0 = byte 0 bit 0).
 */
#ifndef CORE_ENGINE_H
#define CORE_ENGINE_H

#include <stdint.h>

#include "hca_abi.h"
#include "trace_vars.h"
#include "xu_engine.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct core_pins {
    /* doorbells: a host write to BAR0 HOST_DB_OFFSET + db_addr */
    uint8_t db_valid;  /**< in */
    uint8_t db_ready;  /**< out */
    uint8_t db_addr;   /**< in: HCA_DB_SQ / HCA_DB_RQ / HCA_DB_CQ */
    uint32_t db_data;  /**< in */

    /* firmware port: address = firmware address - DEVREG_BASE; fwp block at
     * 0x000, ctx block at FW_CTX_BASE - DEVREG_BASE. Every accepted access is
     * answered with fw_rvalid one or more cycles later. */
    uint8_t fw_valid;  /**< in */
    uint8_t fw_ready;  /**< out */
    uint8_t fw_write;  /**< in */
    uint8_t fw_rvalid; /**< out */
    uint16_t fw_addr;  /**< in */
    uint32_t fw_wdata; /**< in */
    uint32_t fw_rdata; /**< out */
    uint8_t fw_irq;    /**< out: a memory-management event is pending (regs evt); the
                            device ORs it into the firmware core's external interrupt */
    /* what the harness counts (dev_engine_stats_t): 1 while the translation
       unit's fence (INVALIDATE, FENCE) waits for in-flight requests (xu_fw_port
       ST_FENCE) / while a context DRAIN waits (STATUS.busy) */
    uint8_t fence_wait; /**< out */
    uint8_t drain_wait; /**< out */

    /* DMA: every request is answered by one response with its tag */
    uint8_t dma_req_valid; /**< out */
    uint8_t dma_req_ready; /**< in */
    uint8_t dma_rsp_valid; /**< in */
    uint8_t dma_rsp_ready; /**< out */
    hca_dma_req_t dma_req; /**< out */
    hca_dma_rsp_t dma_rsp; /**< in */

    /* link: packet headers; payload in the packet buffer the header names */
    uint8_t tx_valid; /**< out */
    uint8_t tx_ready; /**< in */
    uint8_t rx_valid; /**< in */
    uint8_t rx_ready; /**< out */
    hca_pkt_t tx;     /**< out */
    hca_pkt_t rx;     /**< in */

    /* external client of the translation unit (key-check probes): the
     * req_/rsp_ pins of xu_pins_t, named xq_/xs_ on hca_core */
    uint8_t xq_valid, xq_ready, xq_tag, xq_rights, xq_remote;
    uint32_t xq_key, xq_pd, xq_len;
    uint64_t xq_va;
    uint8_t xs_valid, xs_ready, xs_tag, xs_status, xs_last;
    uint32_t xs_len;
    uint64_t xs_pa;
} core_pins_t;

/** An implementation of the core: the Verilated RTL (sim/verilated/core_rtl.cpp)
 *  or the C model (model/hca_core.c). */
typedef struct core_engine_ops {
    const char *name;
    /** Table sizes as xu_params_t; -ENOTSUP for sizes the engine was not built with. */
    int (*create)(void **eng, const xu_params_t *params);
    void (*destroy)(void *eng);
    /** Reset: control state cleared; contexts invalid (every QP RESET, every CQ invalid). */
    void (*reset)(void *eng);
    /** One cycle: read inputs, write this cycle's outputs, take the edge. */
    void (*cycle)(void *eng, core_pins_t *pins, uint64_t now);
    int (*trace_open)(void *eng, const char *path);
    void (*trace_close)(void *eng);
    /** Optional (NULL: never quiet). With `next` the cycle the next call of
     *  cycle() would run and every input pin held as it is (valids low but
     *  for responses already offered), the first cycle >= next in which the
     *  engine would change an output or its state; UINT64_MAX when it waits
     *  only for input. The harness skips the cycles before it. */
    uint64_t (*quiet_until)(const void *eng, uint64_t next);
    /** Optional (NULL: nothing to do). The harness skipped cycles [from, to),
     *  all quiet by quiet_until, with the inputs idle: the engine advances
     *  whatever runs on its own in quiet cycles (a free-running scan) as if
     *  they had been stepped. */
    void (*skip)(void *eng, uint64_t from, uint64_t to);
    /** Optional (NULL: one window per file). Stop (paused = 1) or resume
     *  dumping into the open wave file, so several windows share one file. */
    void (*trace_pause)(void *eng, int paused);
    /** Optional (NULL: none). Variables (trace_vars.h) every later trace_open
     *  declares beside the core's signals and writes at each dump; NULL: none.
     *  The caller keeps *vars alive until the file is closed. 0 or -EINVAL. */
    int (*trace_vars)(void *eng, const trace_vars_t *vars);
} core_engine_ops_t;

extern const core_engine_ops_t core_rtl_ops;
extern const core_engine_ops_t core_model_ops;

#ifdef __cplusplus
}
#endif
#endif /* CORE_ENGINE_H */
