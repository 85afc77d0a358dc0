/* fuzz_mailbox.c — libFuzzer harness of the command mailbox: random command
 * words (op, input modifier) and random input mailbox layouts, posted
 * through the reference driver (hcadrv_cmd) to one live device whose
 * firmware runs on the RV32IM ISS.
 *
 * Input: up to 4 commands, each
 *   op (1 byte), in_mod (4), flags (1: bit 0 = in_param is a raw bus address
 *   from the next 8 bytes instead of the mailbox buffer), mailbox length (1),
 *   that many mailbox bytes.
 * Oracle, per command: the firmware answers (hcadrv_cmd returns 0 — the
 * answer's status may be any error — never -ETIMEDOUT), keeps running
 * (hca_dev_fw_health), and the protection checker stays silent; per input:
 * QUERY_DEVICE still answers OK.
 *
 * Guidance: the firmware's code is not instrumented (it runs on the ISS), so
 * the words of firmware RAM the core spent cycles at during the input
 * (hca_dev_fw_profile) are fed to libFuzzer as extra coverage counters.
 * The device persists across inputs (as a device under a driver does); it is
 * re-created every FUZZ_MAILBOX_RECREATE inputs so state cannot pile up.
 * HCASIM_FUZZ_ENGINE=rtl runs the RTL engine (default: model).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_live.h"
#include "hca_abi.h"

#define RECREATE 2000
#define MAX_CMDS 4

static fuzz_live_t live;
static uint64_t in_box, out_box;
static unsigned inputs;

static void setup(void)
{
    int rc;
    fuzz_live_open(&live);
    if ((rc = live.host.ops->mem_alloc(live.host.ctx, 4096, 4096, &in_box)) ||
        (rc = live.host.ops->mem_alloc(live.host.ctx, 4096, 4096, &out_box)))
        fuzz_die("mailbox buffers", rc);
}

static void teardown(void)
{
    fuzz_live_close(&live);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    setup();
    atexit(teardown);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (++inputs % RECREATE == 0) {
        teardown();
        setup();
    }
    hcadrv_t *drv = live.drv;
    const hca_host_t host = live.host;
    fuzz_fw_cov_begin(&live);

    size_t at = 0;
    for (int c = 0; c < MAX_CMDS && size - at >= 7; c++) {
        const unsigned op = data[at];
        uint32_t in_mod;
        memcpy(&in_mod, data + at + 1, 4);
        const unsigned flags = data[at + 5], len = data[at + 6];
        at += 7;
        uint64_t in_param = in_box;
        if ((flags & 1) && size - at >= 8) {
            memcpy(&in_param, data + at, 8);
            at += 8;
        }
        uint8_t box[256] = {0};
        size_t n = len < size - at ? len : size - at;
        memcpy(box, data + at, n);
        at += n;
        host.ops->mem_write(host.ctx, in_box, box, sizeof box);
        uint32_t out_imm = 0;
        int rc = hcadrv_cmd(drv, op, in_param, out_box, in_mod, &out_imm);
        /* Any answer is fine, an error status included; no answer (a hang), a
         * previous command never finished, or a status outside the ABI is not. */
        const int answered = rc == 0 || rc == -EINVAL || rc == -ENOMEM || rc == -ENOENT || rc == -EFAULT ||
                             rc == -EOPNOTSUPP || (rc == -EBUSY && hcadrv_last_status(drv) == HCA_CMD_STATUS_BUSY);
        if (!answered) {
            fprintf(stderr, "command op %u in_mod 0x%08" PRIx32 " in_param 0x%" PRIx64 ": hcadrv_cmd %d (%s), status %u\n",
                    op, in_mod, in_param, rc, strerror(-rc), hcadrv_last_status(drv));
            abort();
        }
        char what[96];
        snprintf(what, sizeof what, "after command op %u in_mod 0x%08" PRIx32, op, in_mod);
        fuzz_live_check(&live, what);
    }
    hcadrv_device_attr_t attr;
    int rc = hcadrv_query_device(drv, &attr);
    if (rc) {
        fprintf(stderr, "QUERY_DEVICE after the input: %d (status %u)\n", rc, hcadrv_last_status(drv));
        abort();
    }
    fuzz_fw_cov_end(&live);
    return 0;
}
