/* xu_engine.h — the translation unit (key checker + MPT + MTT), one clock at a time.
 *
 * One interface, two implementations: the Verilated RTL (sim/xu_rtl.cpp,
 * rtl/xlate_unit.sv) and the C cycle-approximate model (model/xu_model.c).
 * The harness (sim/harness/xu.h) drives either through these pins; nothing else
 * touches an engine.
 *
 * Pins follow the RTL ports of xlate_unit one to one (req_*, rsp_*, fw_*).
 * Every stream is valid/ready: a beat moves in a cycle where both are 1.
 */
#ifndef XU_ENGINE_H
#define XU_ENGINE_H

#include <stdint.h>

#include "hca_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The fwp staging registers hold exactly one MPT entry, word i = bytes 4i..4i+3,
 * so an entry and its staging words convert by memcpy. */
#ifdef __cplusplus
static_assert(sizeof(hca_mpt_entry_t) == 4 * HCA_FWP_MPT_DATA_COUNT, "fwp staging = one MPT entry");
#else
_Static_assert(sizeof(hca_mpt_entry_t) == 4 * HCA_FWP_MPT_DATA_COUNT, "fwp staging = one MPT entry");
#endif

/** Table sizes of one translation unit. Both must be powers of two in [2, 2^24]. */
typedef struct xu_params {
    uint32_t mpt_entries; /**< MPT slots; default HCA_MPT_ENTRIES_DEFAULT */
    uint32_t mtt_entries; /**< MTT entries; default HCA_MTT_ENTRIES_DEFAULT */
} xu_params_t;

/** The table-size rule every engine and harness applies: a power of two in
 *  [2, 2^HCA_TABLE_INDEX_BITS] (an index must fit the key's 24-bit index). */
static inline int xu_table_size_ok(uint32_t n)
{
    return n >= 2 && n <= (1u << HCA_TABLE_INDEX_BITS) && (n & (n - 1)) == 0;
}

/** Both sizes of p follow the rule. */
static inline int xu_params_ok(const xu_params_t *p)
{
    return xu_table_size_ok(p->mpt_entries) && xu_table_size_ok(p->mtt_entries);
}

/** The unit's ports for one cycle. The harness sets the inputs, the engine the outputs. */
typedef struct xu_pins {
    /* request stream: one key-checked access {key, pd, va, len, rights, remote} */
    uint8_t req_valid;  /**< in */
    uint8_t req_ready;  /**< out */
    uint8_t req_tag;    /**< in: echoed on every response beat */
    uint8_t req_rights; /**< in: HCA_ACCESS_* the access needs (0: local read) */
    uint8_t req_remote; /**< in: 1 for an access on behalf of a remote peer (the key is an R_Key) */
    uint32_t req_key;   /**< in */
    uint32_t req_pd;    /**< in */
    uint32_t req_len;   /**< in: bytes; 0 is allowed */
    uint64_t req_va;    /**< in */

    /* response stream: one beat per physical segment, split at page boundaries;
     * a failed check is a single beat with status != OK, pa = len = 0, last = 1;
     * a zero-length access that passes is a single beat with pa = len = 0. */
    uint8_t rsp_valid;  /**< out */
    uint8_t rsp_ready;  /**< in */
    uint8_t rsp_tag;    /**< out */
    uint8_t rsp_status; /**< out: enum hca_xlate_status */
    uint8_t rsp_last;   /**< out: last beat of this request */
    uint32_t rsp_len;   /**< out */
    uint64_t rsp_pa;    /**< out */

    /* firmware port: one 32-bit register access of the fwp block at a time;
     * every accepted access (read or write) answers with fw_rvalid one cycle later. */
    uint8_t fw_valid;   /**< in */
    uint8_t fw_ready;   /**< out */
    uint8_t fw_write;   /**< in: 1 write, 0 read */
    uint8_t fw_rvalid;  /**< out */
    uint16_t fw_addr;   /**< in: byte offset in the fwp block (HCA_FWP_*) */
    uint32_t fw_wdata;  /**< in */
    uint32_t fw_rdata;  /**< out: read data when fw_rvalid (0 for a write) */
} xu_pins_t;

/** One key-checked access. */
typedef struct xu_req {
    uint8_t tag;    /**< echoed on the response beats */
    uint8_t rights; /**< HCA_ACCESS_* needed */
    uint8_t remote; /**< 1: remote access (R_Key) */
    uint32_t key;
    uint32_t pd;
    uint32_t len; /**< bytes */
    uint64_t va;
} xu_req_t;

/** One response beat: a physical segment, or the error of a failed check. */
typedef struct xu_seg {
    uint8_t tag;
    uint8_t status; /**< enum hca_xlate_status */
    uint8_t last;
    uint32_t len;
    uint64_t pa;
    uint64_t cycle; /**< cycle in which the beat was handed over */
} xu_seg_t;

/** An engine: the RTL or the model. All functions are required. */
typedef struct xu_engine_ops {
    const char *name; /**< "rtl" or "model" */
    /** Make an engine with these table sizes. 0, -EINVAL (bad sizes),
     *  -ENOTSUP (sizes this engine was not built for), -ENOMEM. */
    int (*create)(void **eng, const xu_params_t *params);
    void (*destroy)(void *eng);
    /** Reset: control state cleared, every MPT slot unallocated, every MTT entry absent. */
    void (*reset)(void *eng);
    /** One clock cycle: read the inputs of *pins, write the outputs as they are
     *  during this cycle (handshakes are judged from them), then take the rising
     *  edge that ends the cycle. now = this cycle's number, for waveforms. */
    void (*cycle)(void *eng, xu_pins_t *pins, uint64_t now);
    /** Start dumping waves to an FST file; -ENOTSUP when the engine has none. */
    int (*trace_open)(void *eng, const char *path);
    void (*trace_close)(void *eng);
} xu_engine_ops_t;

extern const xu_engine_ops_t xu_rtl_ops;
extern const xu_engine_ops_t xu_model_ops;

#ifdef __cplusplus
}
#endif
#endif /* XU_ENGINE_H */
