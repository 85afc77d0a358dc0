/* hcadrv_dev.c — the driver's life: open (its mailboxes and page-list
 * buffer), close, QUERY_DEVICE and its cached copy. */
#include "hcadrv_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int hcadrv_open(hcadrv_t **out, const hca_host_t *host)
{
    if (!out || !host || !host->ops)
        return -EINVAL;
    hcadrv_t *d = calloc(1, sizeof *d);
    if (!d)
        return -ENOMEM;
    d->host = *host;
    int rc = mem_alloc(d, DRV_PAGE_SIZE, DRV_PAGE_SIZE, &d->mbox_in);
    if (!rc)
        rc = mem_alloc(d, DRV_PAGE_SIZE, DRV_PAGE_SIZE, &d->mbox_out);
    if (!rc)
        rc = mem_alloc(d, PAGE_LIST_BYTES, DRV_PAGE_SIZE, &d->page_list);
    if (rc) {
        free(d);
        return rc;
    }
    *out = d;
    return 0;
}

void hcadrv_close(hcadrv_t *drv)
{
    if (drv) {
        drv_peer_free(drv);
        free(drv->pls);
    }
    free(drv);
}

int hcadrv_query_device(hcadrv_t *drv, hcadrv_device_attr_t *attr)
{
    if (!drv || !attr)
        return -EINVAL;
    hca_query_device_out_t q;
    int rc = drv_cmd_out(drv, HCA_CMD_OP_QUERY_DEVICE, 0, &q, sizeof q);
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
    attr->max_qp = q.max_qp;
    attr->max_cq = q.max_cq;
    attr->max_qp_wr = q.max_qp_wr;
    attr->max_cqe = q.max_cqe;
    attr->max_send_sge = q.max_send_sge;
    attr->max_recv_sge = q.max_recv_sge;
    drv->attr = *attr;
    drv->attr_valid = 1;
    return 0;
}

/* The device's attributes, queried once. */
int drv_dev_attr(hcadrv_t *drv, const hcadrv_device_attr_t **a)
{
    if (!drv->attr_valid) {
        hcadrv_device_attr_t tmp;
        int rc = hcadrv_query_device(drv, &tmp);
        if (rc)
            return rc;
    }
    *a = &drv->attr;
    return 0;
}
