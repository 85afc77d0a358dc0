/* hcadrv_list.c — registration lists: fast-reg page lists (u64 page
 * addresses) and KLM lists (hca_sge_t), in device-visible memory; a list a
 * posted FAST_REG_MR / REG_INDIR_MR names is the driver's until that WR
 * completes. */
#include "hcadrv_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The list behind a handle (handle, bus address and entry size must match). */
static drv_pl_t *list_of(hcadrv_t *drv, uint32_t handle, uint64_t bus, uint32_t entry)
{
    if (!drv || handle == 0 || handle > drv->npls)
        return NULL;
    drv_pl_t *p = &drv->pls[handle - 1];
    return p->used && p->bus == bus && p->entry == entry ? p : NULL;
}

drv_pl_t *drv_pl_of(hcadrv_t *drv, const hcadrv_page_list_t *pl)
{
    return pl && pl->drv == drv ? list_of(drv, pl->handle, pl->bus_addr, 8) : NULL;
}

drv_pl_t *drv_klm_of(hcadrv_t *drv, const hcadrv_indir_reg_list_t *l)
{
    return l && l->drv == drv ? list_of(drv, l->handle, l->bus_addr, sizeof(hca_sge_t)) : NULL;
}

/* Whether an outstanding WR still owns the list: its QP exists and the
 * driver's sq_done has not passed its index (a polled CQE of it, or of a later
 * WR of that send queue, retires it). Ownership, once ended, stays ended. */
int drv_pl_owned(hcadrv_t *drv, drv_pl_t *p)
{
    if (!p->owned)
        return 0;
    drv_qp_t *q = drv_qp_of(drv, p->qpn);
    if (!q || (int32_t)(q->sq_done - p->sq_index) > 0)
        p->owned = 0;
    return p->owned;
}

/* A new list of len entries of entry bytes (device memory zeroed): its handle. */
static int list_alloc(hcadrv_t *drv, uint32_t len, uint32_t entry, uint32_t *handle, uint64_t *bus)
{
    uint32_t slot = 0;
    while (slot < drv->npls && drv->pls[slot].used)
        slot++;
    if (slot == drv->npls) {
        uint32_t n = drv->npls ? 2 * drv->npls : 16;
        drv_pl_t *grown = realloc(drv->pls, n * sizeof *grown);
        if (!grown)
            return -ENOMEM;
        memset(grown + drv->npls, 0, (n - drv->npls) * sizeof *grown);
        drv->pls = grown;
        drv->npls = n;
    }
    const uint64_t bytes = (uint64_t)len * entry;
    int rc = mem_alloc(drv, bytes, entry == 8 ? DRV_PAGE_SIZE : 64, bus);
    if (rc)
        return rc;
    drv->pls[slot] = (drv_pl_t){.used = 1, .bus = *bus, .bytes = bytes, .len = len, .entry = entry};
    *handle = slot + 1;
    return 0;
}

static int list_free(hcadrv_t *drv, drv_pl_t *p, uint32_t *handle)
{
    if (!p)
        return -EINVAL;
    if (drv_pl_owned(drv, p))
        return -EBUSY;
    mem_free(drv, p->bus, p->bytes);
    memset(p, 0, sizeof *p);
    *handle = 0;
    return 0;
}

static int list_set(hcadrv_t *drv, drv_pl_t *p, uint32_t i, const void *e)
{
    if (!p || i >= p->len)
        return -EINVAL;
    if (drv_pl_owned(drv, p))
        return -EBUSY;
    return mem_wr(drv, p->bus + (uint64_t)p->entry * i, e, p->entry);
}

int hcadrv_alloc_fast_reg_page_list(hcadrv_t *drv, uint32_t len, hcadrv_page_list_t *pl)
{
    if (!drv || !pl)
        return -EINVAL;
    const hcadrv_device_attr_t *a;
    int rc = drv_dev_attr(drv, &a);
    if (rc)
        return rc;
    if (len == 0 || len > a->max_fast_reg_page_list_len)
        return -EINVAL;
    uint32_t actual = (len + 7u) & ~7u; /* one 64-byte line */
    if (actual > a->max_fast_reg_page_list_len)
        actual = a->max_fast_reg_page_list_len;
    uint32_t handle = 0;
    uint64_t bus = 0;
    if ((rc = list_alloc(drv, actual, 8, &handle, &bus)))
        return rc;
    *pl = (hcadrv_page_list_t){.drv = drv, .bus_addr = bus, .max_page_list_len = actual, .handle = handle};
    return 0;
}

int hcadrv_free_fast_reg_page_list(hcadrv_t *drv, hcadrv_page_list_t *pl)
{
    return pl ? list_free(drv, drv_pl_of(drv, pl), &pl->handle) : -EINVAL;
}

int hcadrv_page_list_set(hcadrv_page_list_t *pl, uint32_t i, uint64_t addr)
{
    return pl ? list_set(pl->drv, drv_pl_of(pl->drv, pl), i, &addr) : -EINVAL;
}

int hcadrv_alloc_indir_reg_list(hcadrv_t *drv, uint32_t len, hcadrv_indir_reg_list_t *l)
{
    if (!drv || !l)
        return -EINVAL;
    const hcadrv_device_attr_t *a;
    int rc = drv_dev_attr(drv, &a);
    if (rc)
        return rc;
    if (len == 0 || len > a->max_indir_reg_list_len)
        return -EINVAL;
    uint32_t handle = 0;
    uint64_t bus = 0;
    if ((rc = list_alloc(drv, len, sizeof(hca_sge_t), &handle, &bus)))
        return rc;
    *l = (hcadrv_indir_reg_list_t){.drv = drv, .bus_addr = bus, .max_indir_list_len = len, .handle = handle};
    return 0;
}

int hcadrv_free_indir_reg_list(hcadrv_t *drv, hcadrv_indir_reg_list_t *l)
{
    return l ? list_free(drv, drv_klm_of(drv, l), &l->handle) : -EINVAL;
}

int hcadrv_indir_reg_list_set(hcadrv_indir_reg_list_t *l, uint32_t i, const hca_sge_t *e)
{
    return l && e ? list_set(l->drv, drv_klm_of(l->drv, l), i, e) : -EINVAL;
}

/* The QP's WRs are gone (destroyed, or reset): so is their hold on page
 * and KLM lists. */
void drv_release_lists(hcadrv_t *drv, uint32_t qpn)
{
    for (uint32_t i = 0; i < drv->npls; i++)
        if (drv->pls[i].owned && drv->pls[i].qpn == qpn)
            drv->pls[i].owned = 0;
}
