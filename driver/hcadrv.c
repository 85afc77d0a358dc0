/* hcadrv.c — host reference driver: mailbox commands and memory registration. */
#include "hcadrv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Cycles between two polls of HCR.CTRL.go: a driver spinning on MMIO reads. */
#define CMD_POLL_CYCLES 16u
/* Bus addresses of u64 page addresses the page-list buffer holds. */
#define PAGE_LIST_BYTES (HCA_MAX_REG_PAGES * 8u)

struct hcadrv {
    hca_dev_t *dev;
    hostmem_t *mem;
    uint64_t mbox_in, mbox_out; /* one page each */
    uint64_t page_list;         /* PAGE_LIST_BYTES */
    unsigned last_status;
    uint64_t last_cycles;
};

static uint32_t hcr(uint32_t reg)
{
    return HCA_HOST_HCR_OFFSET + reg;
}

int hcadrv_open(hcadrv_t **out, hca_dev_t *dev, hostmem_t *mem)
{
    if (!out || !dev || !mem)
        return -EINVAL;
    hcadrv_t *d = calloc(1, sizeof *d);
    if (!d)
        return -ENOMEM;
    d->dev = dev;
    d->mem = mem;
    int rc = hostmem_alloc(mem, HOSTMEM_PAGE_SIZE, HOSTMEM_PAGE_SIZE, &d->mbox_in);
    if (!rc)
        rc = hostmem_alloc(mem, HOSTMEM_PAGE_SIZE, HOSTMEM_PAGE_SIZE, &d->mbox_out);
    if (!rc)
        rc = hostmem_alloc(mem, PAGE_LIST_BYTES, HOSTMEM_PAGE_SIZE, &d->page_list);
    if (rc) {
        free(d);
        return rc;
    }
    *out = d;
    return 0;
}

void hcadrv_close(hcadrv_t *drv)
{
    free(drv);
}

unsigned hcadrv_last_status(const hcadrv_t *drv)
{
    return drv ? drv->last_status : HCA_CMD_STATUS_OK;
}

uint64_t hcadrv_last_cmd_cycles(const hcadrv_t *drv)
{
    return drv ? drv->last_cycles : 0;
}

static int status_errno(unsigned st)
{
    switch (st) {
    case HCA_CMD_STATUS_OK: return 0;
    case HCA_CMD_STATUS_BAD_PARAM: return -EINVAL;
    case HCA_CMD_STATUS_NO_RESOURCES: return -ENOMEM;
    case HCA_CMD_STATUS_BUSY: return -EBUSY;
    case HCA_CMD_STATUS_BAD_INDEX: return -ENOENT;
    case HCA_CMD_STATUS_DMA_ERR: return -EFAULT;
    case HCA_CMD_STATUS_BAD_OP: return -EOPNOTSUPP;
    default: return -EIO;
    }
}

int hcadrv_cmd(hcadrv_t *drv, unsigned op, uint64_t in_param, uint64_t out_param, uint32_t in_mod,
               uint32_t *out_imm)
{
    if (!drv || op > 0xff)
        return -EINVAL;
    uint32_t ctrl = 0;
    hca_dev_mmio_read(drv->dev, hcr(HCA_HCR_CTRL), &ctrl);
    if (HCA_HCR_CTRL_GO_GET(ctrl))
        return -EBUSY; /* the previous command never finished */
    hca_dev_mmio_write(drv->dev, hcr(HCA_HCR_IN_PARAM_LO), (uint32_t)in_param);
    hca_dev_mmio_write(drv->dev, hcr(HCA_HCR_IN_PARAM_HI), (uint32_t)(in_param >> 32));
    hca_dev_mmio_write(drv->dev, hcr(HCA_HCR_OUT_PARAM_LO), (uint32_t)out_param);
    hca_dev_mmio_write(drv->dev, hcr(HCA_HCR_OUT_PARAM_HI), (uint32_t)(out_param >> 32));
    hca_dev_mmio_write(drv->dev, hcr(HCA_HCR_IN_MOD), in_mod);
    uint64_t t0 = hca_dev_cycle(drv->dev);
    hca_dev_mmio_write(drv->dev, hcr(HCA_HCR_CTRL), HCA_HCR_CTRL_OP_PUT(op) | HCA_HCR_CTRL_GO_PUT(1));
    do {
        if (hca_dev_cycle(drv->dev) - t0 > HCADRV_CMD_TIMEOUT_CYCLES || hca_dev_fw_health(drv->dev, NULL, 0))
            return -ETIMEDOUT;
        hca_dev_step(drv->dev, CMD_POLL_CYCLES);
        hca_dev_mmio_read(drv->dev, hcr(HCA_HCR_CTRL), &ctrl);
    } while (HCA_HCR_CTRL_GO_GET(ctrl));
    drv->last_cycles = hca_dev_cycle(drv->dev) - t0;
    uint32_t st = 0, imm = 0;
    hca_dev_mmio_read(drv->dev, hcr(HCA_HCR_STATUS), &st);
    hca_dev_mmio_read(drv->dev, hcr(HCA_HCR_OUT_IMM), &imm);
    drv->last_status = HCA_HCR_STATUS_STATUS_GET(st);
    if (out_imm)
        *out_imm = imm;
    return status_errno(drv->last_status);
}

int hcadrv_query_device(hcadrv_t *drv, hcadrv_device_attr_t *attr)
{
    if (!drv || !attr)
        return -EINVAL;
    hca_query_device_out_t q;
    int rc = hcadrv_cmd(drv, HCA_CMD_OP_QUERY_DEVICE, 0, drv->mbox_out, 0, NULL);
    if (!rc)
        rc = hostmem_read(drv->mem, drv->mbox_out, &q, sizeof q);
    if (rc)
        return rc;
    memset(attr, 0, sizeof *attr);
    attr->fw_version = q.fw_version;
    attr->caps = q.caps;
    attr->mem_mgt_extensions = !!(q.caps & HCA_DEV_CAP_MEM_MGT_EXTENSIONS);
    attr->reserved_lkey_valid = !!(q.caps & HCA_DEV_CAP_RESERVED_LKEY);
    attr->read_with_inv = !!(q.caps & HCA_DEV_CAP_READ_WITH_INV);
    attr->indir_reg = !!(q.caps & HCA_DEV_CAP_INDIR_REG);
    attr->peer_memory = !!(q.caps & HCA_DEV_CAP_PEER_MEMORY);
    attr->reserved_lkey = q.reserved_lkey;
    attr->max_fast_reg_page_list_len = q.max_fast_reg_page_list_len;
    attr->max_indir_reg_list_len = q.max_indir_reg_list_len;
    attr->max_indirection = q.max_indirection;
    attr->page_shifts = q.page_shifts;
    attr->max_mr = q.max_mr;
    attr->max_mtt = q.max_mtt;
    attr->max_pd = q.max_pd;
    attr->max_reg_pages = q.max_reg_pages;
    return 0;
}

int hcadrv_alloc_pd(hcadrv_t *drv, uint32_t *pd)
{
    if (!drv || !pd)
        return -EINVAL;
    return hcadrv_cmd(drv, HCA_CMD_OP_ALLOC_PD, 0, 0, 0, pd);
}

int hcadrv_dealloc_pd(hcadrv_t *drv, uint32_t pd)
{
    if (!drv)
        return -EINVAL;
    return hcadrv_cmd(drv, HCA_CMD_OP_DEALLOC_PD, 0, 0, pd, NULL);
}

static int access_valid(uint32_t access)
{
    if (access & ~HCA_ACCESS_ALL)
        return 0;
    return !((access & (HCA_ACCESS_REMOTE_WRITE | HCA_ACCESS_REMOTE_ATOMIC)) && !(access & HCA_ACCESS_LOCAL_WRITE));
}

static int create_mkey(hcadrv_t *drv, const hca_create_mkey_in_t *in, uint32_t *key)
{
    int rc = hostmem_write(drv->mem, drv->mbox_in, in, sizeof *in);
    return rc ? rc : hcadrv_cmd(drv, HCA_CMD_OP_CREATE_MKEY, drv->mbox_in, 0, 0, key);
}

int hcadrv_reg_mr(hcadrv_t *drv, uint32_t pd, uint64_t addr, uint64_t length, uint64_t iova,
                  uint32_t access, unsigned page_shift, hcadrv_mr_t *mr)
{
    if (!drv || !mr || !length || !access_valid(access) || page_shift < HCA_PAGE_SHIFT_MIN ||
        page_shift > HCA_PAGE_SHIFT_MAX || addr + length < addr || iova + length < iova)
        return -EINVAL;
    uint64_t mask = (1ull << page_shift) - 1;
    if ((addr & mask) != (iova & mask))
        return -EINVAL; /* the first-byte offset inside a page must survive translation */
    uint64_t first = addr & ~mask;
    uint64_t npages = ((addr & mask) + length + mask) >> page_shift;
    if (npages > HCA_MAX_REG_PAGES)
        return -EINVAL;
    for (uint64_t i = 0; i < npages; i++) {
        uint64_t page = first + (i << page_shift);
        int rc = hostmem_write(drv->mem, drv->page_list + 8 * i, &page, 8);
        if (rc)
            return rc;
    }
    hca_create_mkey_in_t in;
    memset(&in, 0, sizeof in);
    in.pd = pd;
    hca_create_mkey_in_set_kind(&in, HCA_MKEY_KIND_REGULAR);
    hca_create_mkey_in_set_access(&in, access);
    hca_create_mkey_in_set_page_shift(&in, page_shift);
    in.iova = iova;
    in.length = length;
    in.page_list = drv->page_list;
    in.npages = (uint32_t)npages;
    uint32_t key = 0;
    int rc = create_mkey(drv, &in, &key);
    if (rc)
        return rc;
    *mr = (hcadrv_mr_t){.lkey = key,
                        .rkey = (access & ~HCA_ACCESS_LOCAL_WRITE) ? key : 0,
                        .pd = pd,
                        .kind = HCA_MKEY_KIND_REGULAR,
                        .access = access,
                        .iova = iova,
                        .length = length};
    return 0;
}

int hcadrv_alloc_mr(hcadrv_t *drv, uint32_t pd, unsigned kind, uint32_t max_list_len, hcadrv_mr_t *mr)
{
    if (!drv || !mr || (kind != HCA_MKEY_KIND_FAST_REG && kind != HCA_MKEY_KIND_INDIRECT) || !max_list_len)
        return -EINVAL;
    hca_create_mkey_in_t in;
    memset(&in, 0, sizeof in);
    in.pd = pd;
    hca_create_mkey_in_set_kind(&in, kind);
    in.npages = max_list_len;
    uint32_t key = 0;
    int rc = create_mkey(drv, &in, &key);
    if (rc)
        return rc;
    *mr = (hcadrv_mr_t){.lkey = key, .rkey = key, .pd = pd, .kind = kind, .max_list_len = max_list_len};
    return 0;
}

int hcadrv_dereg_mr(hcadrv_t *drv, hcadrv_mr_t *mr)
{
    if (!drv || !mr)
        return -EINVAL;
    return hcadrv_cmd(drv, HCA_CMD_OP_DESTROY_MKEY, 0, 0, mr->lkey, NULL);
}

int hcadrv_query_mkey(hcadrv_t *drv, uint32_t index, hca_mpt_entry_t *entry)
{
    if (!drv || !entry)
        return -EINVAL;
    int rc = hcadrv_cmd(drv, HCA_CMD_OP_QUERY_MKEY, 0, drv->mbox_out, index, NULL);
    return rc ? rc : hostmem_read(drv->mem, drv->mbox_out, entry, sizeof *entry);
}
