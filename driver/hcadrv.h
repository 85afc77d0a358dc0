/* hcadrv.h — the host reference driver: the consumer API of the device.
 *
 * It reaches the device only through BAR0 registers and host memory, as a
 * kernel driver would: commands go through the HCR mailbox with their
 * arguments in host-memory mailboxes. Calls that wait (for the mailbox)
 * advance device time by stepping the device; they never wait forever.
 *
 * Every function returns 0 or a negative errno: -EINVAL for a bad argument
 * caught before the device is asked, the device's answer mapped otherwise
 * (BAD_PARAM -EINVAL, NO_RESOURCES -ENOMEM, BUSY -EBUSY, BAD_INDEX -ENOENT,
 * DMA_ERR -EFAULT, BAD_OP -EOPNOTSUPP, INTERNAL -EIO), -ETIMEDOUT when the
 * firmware did not answer. hcadrv_last_status() has the raw cmd_status.
 */
#ifndef HCADRV_H
#define HCADRV_H

#include <stdint.h>

#include "hca_dev.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hcadrv hcadrv_t;

/** Device attributes (QUERY_DEVICE). */
typedef struct hcadrv_device_attr {
    uint32_t fw_version;
    uint32_t caps; /**< HCA_DEV_CAP_* */
    int mem_mgt_extensions, reserved_lkey_valid, read_with_inv, indir_reg, peer_memory;
    uint32_t reserved_lkey;
    uint32_t max_fast_reg_page_list_len;
    uint32_t max_indir_reg_list_len;
    uint32_t max_indirection;
    uint32_t page_shifts; /**< bit s: pages of 2^s bytes supported */
    uint32_t max_mr, max_mtt, max_pd, max_reg_pages;
} hcadrv_device_attr_t;

/** Cycles a mailbox command may take before -ETIMEDOUT. */
#define HCADRV_CMD_TIMEOUT_CYCLES 5000000ull

/** Open the device (dev and mem are borrowed). 0, -ENOMEM. */
int hcadrv_open(hcadrv_t **out, hca_dev_t *dev, hostmem_t *mem);
void hcadrv_close(hcadrv_t *drv);
/** cmd_status of the last mailbox command. */
unsigned hcadrv_last_status(const hcadrv_t *drv);
/** Device cycles the last mailbox command took, post to answer. */
uint64_t hcadrv_last_cmd_cycles(const hcadrv_t *drv);

/** One raw mailbox command (for tests and tools). */
int hcadrv_cmd(hcadrv_t *drv, unsigned op, uint64_t in_param, uint64_t out_param, uint32_t in_mod,
               uint32_t *out_imm);

int hcadrv_query_device(hcadrv_t *drv, hcadrv_device_attr_t *attr);
int hcadrv_alloc_pd(hcadrv_t *drv, uint32_t *pd);
int hcadrv_dealloc_pd(hcadrv_t *drv, uint32_t pd);

/** A memory region as the driver holds it. */
typedef struct hcadrv_mr {
    uint32_t lkey, rkey; /**< rkey = lkey when a remote right is granted, else 0 */
    uint32_t pd;
    unsigned kind; /**< enum hca_mkey_kind */
    uint32_t access;
    uint64_t iova, length;
    uint32_t max_list_len; /**< fast_reg / indirect */
} hcadrv_mr_t;

/** Register length bytes of host memory at bus address addr, as iova, with
 *  pages of 2^page_shift bytes (the page list is built here and handed to the
 *  firmware by DMA). */
int hcadrv_reg_mr(hcadrv_t *drv, uint32_t pd, uint64_t addr, uint64_t length, uint64_t iova,
                  uint32_t access, unsigned page_shift, hcadrv_mr_t *mr);
/** Allocate a fast-reg (kind FAST_REG) or indirect MR: FREE until registered by a work request. */
int hcadrv_alloc_mr(hcadrv_t *drv, uint32_t pd, unsigned kind, uint32_t max_list_len, hcadrv_mr_t *mr);
/** Invalidate-and-fence, then free the MR's slot. */
int hcadrv_dereg_mr(hcadrv_t *drv, hcadrv_mr_t *mr);
/** Debug read of the device's MPT entry for an index. */
int hcadrv_query_mkey(hcadrv_t *drv, uint32_t index, hca_mpt_entry_t *entry);

#ifdef __cplusplus
}
#endif
#endif /* HCADRV_H */
