/* hcadrv_mr.c — protection domains and memory keys: regular MRs over host
 * pages (peer memory: hcadrv_peer.c), fast-reg and indirect MRs, the DMA MR
 * (the reserved L_Key where the device has one), QUERY_MKEY. */
#include "hcadrv_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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
    return drv_destroy_errno(hcadrv_cmd(drv, HCA_CMD_OP_DEALLOC_PD, 0, 0, pd, NULL));
}

static int access_valid(uint32_t access)
{
    if (access & ~HCA_ACCESS_ALL)
        return 0;
    return !((access & (HCA_ACCESS_REMOTE_WRITE | HCA_ACCESS_REMOTE_ATOMIC)) && !(access & HCA_ACCESS_LOCAL_WRITE));
}

static int create_mkey(hcadrv_t *drv, const hca_create_mkey_in_t *in, uint32_t *key)
{
    return drv_cmd_in(drv, HCA_CMD_OP_CREATE_MKEY, in, sizeof *in, key);
}

int drv_reg_pages(hcadrv_t *drv, uint32_t pd, const uint64_t *pages, uint32_t npages, unsigned page_shift,
                  uint64_t iova, uint64_t length, uint32_t access, hcadrv_mr_t *mr)
{
    if (npages > HCA_MAX_REG_PAGES)
        return -EINVAL;
    int rc = mem_wr(drv, drv->page_list, pages, 8ull * npages);
    if (rc)
        return rc;
    hca_create_mkey_in_t in;
    memset(&in, 0, sizeof in);
    in.pd = pd;
    hca_create_mkey_in_set_kind(&in, HCA_MKEY_KIND_REGULAR);
    hca_create_mkey_in_set_access(&in, access);
    hca_create_mkey_in_set_page_shift(&in, page_shift);
    in.iova = iova;
    in.length = length;
    in.page_list = drv->page_list;
    in.npages = npages;
    uint32_t key = 0;
    if ((rc = create_mkey(drv, &in, &key)))
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

int hcadrv_reg_mr(hcadrv_t *drv, uint32_t pd, uint64_t addr, uint64_t length, uint64_t iova,
                  uint32_t access, unsigned page_shift, hcadrv_mr_t *mr)
{
    if (!drv || !mr || !length || !access_valid(access) || page_shift < HCA_PAGE_SHIFT_MIN ||
        page_shift > HCA_PAGE_SHIFT_MAX || addr + length < addr || iova + length < iova)
        return -EINVAL;
    /* Memory a peer client owns is pinned and mapped by that client, in its
     * page size (hcadrv_peer.c); anything else is host memory. */
    int rc = drv_peer_reg_mr(drv, pd, addr, length, iova, access, mr);
    if (rc != -ENOENT)
        return rc;
    uint64_t mask = (1ull << page_shift) - 1;
    if ((addr & mask) != (iova & mask))
        return -EINVAL; /* the first-byte offset inside a page must survive translation */
    uint64_t first = addr & ~mask;
    uint64_t npages = ((addr & mask) + length + mask) >> page_shift;
    if (npages > HCA_MAX_REG_PAGES)
        return -EINVAL;
    uint64_t *pages = malloc(8 * npages);
    if (!pages)
        return -ENOMEM;
    for (uint64_t i = 0; i < npages; i++)
        pages[i] = first + (i << page_shift);
    rc = drv_reg_pages(drv, pd, pages, (uint32_t)npages, page_shift, iova, length, access, mr);
    free(pages);
    return rc;
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

/* The MR is the device's reserved L_Key (no slot of its own). */
static int is_reserved_lkey(hcadrv_t *drv, const hcadrv_mr_t *mr)
{
    const hcadrv_device_attr_t *a;
    if (mr->kind != HCA_MKEY_KIND_DMA || drv_dev_attr(drv, &a))
        return 0;
    return a->reserved_lkey_valid && mr->lkey == a->reserved_lkey;
}

int hcadrv_dereg_mr(hcadrv_t *drv, hcadrv_mr_t *mr)
{
    if (!drv || !mr)
        return -EINVAL;
    if (is_reserved_lkey(drv, mr))
        return 0;
    if (mr->peer)
        return drv_peer_dereg_mr(drv, mr);
    return hcadrv_cmd(drv, HCA_CMD_OP_DESTROY_MKEY, 0, 0, mr->lkey, NULL);
}

int hcadrv_get_dma_mr(hcadrv_t *drv, uint32_t pd, hcadrv_mr_t *mr)
{
    if (!drv || !mr)
        return -EINVAL;
    const hcadrv_device_attr_t *a;
    int rc = drv_dev_attr(drv, &a);
    if (rc)
        return rc;
    uint32_t key = a->reserved_lkey;
    if (!a->reserved_lkey_valid) {
        hca_create_mkey_in_t in;
        memset(&in, 0, sizeof in);
        in.pd = pd;
        hca_create_mkey_in_set_kind(&in, HCA_MKEY_KIND_DMA);
        hca_create_mkey_in_set_access(&in, HCA_ACCESS_LOCAL_WRITE);
        if ((rc = create_mkey(drv, &in, &key)))
            return rc;
    }
    *mr = (hcadrv_mr_t){.lkey = key, .rkey = 0, .pd = pd, .kind = HCA_MKEY_KIND_DMA, .access = HCA_ACCESS_LOCAL_WRITE};
    return 0;
}

int hcadrv_query_mkey(hcadrv_t *drv, uint32_t index, hca_mpt_entry_t *entry)
{
    if (!drv || !entry)
        return -EINVAL;
    return drv_cmd_out(drv, HCA_CMD_OP_QUERY_MKEY, index, entry, sizeof *entry);
}
