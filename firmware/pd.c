/* pd.c — protection domains: numbers 1..MAX_PD-1 with a count of MRs using each. */
#include "cmd.h"

static uint16_t pd_users[HCA_MAX_PD]; /* MRs in the PD; meaningless unless allocated */
static uint8_t pd_allocated[HCA_MAX_PD];
static uint32_t pd_next = 1;

unsigned pd_alloc(uint32_t *pd)
{
    for (uint32_t n = 0; n < HCA_MAX_PD - 1; n++) {
        uint32_t p = pd_next;
        pd_next = pd_next + 1 < HCA_MAX_PD ? pd_next + 1 : 1;
        if (!pd_allocated[p]) {
            pd_allocated[p] = 1;
            pd_users[p] = 0;
            *pd = p;
            return HCA_CMD_STATUS_OK;
        }
    }
    return HCA_CMD_STATUS_NO_RESOURCES;
}

int pd_valid(uint32_t pd)
{
    return pd > 0 && pd < HCA_MAX_PD && pd_allocated[pd];
}

unsigned pd_dealloc(uint32_t pd)
{
    if (!pd_valid(pd))
        return HCA_CMD_STATUS_BAD_INDEX;
    if (pd_users[pd])
        return HCA_CMD_STATUS_BUSY;
    pd_allocated[pd] = 0;
    return HCA_CMD_STATUS_OK;
}

void pd_get(uint32_t pd)
{
    pd_users[pd]++;
}

void pd_put(uint32_t pd)
{
    pd_users[pd]--;
}
