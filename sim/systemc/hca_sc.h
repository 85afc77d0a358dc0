/* hca_sc.h — the HCA as a SystemC TLM-2.0 module (loosely timed), for
 * virtual platforms. It wraps one hca_dev (sim/device/hca_dev.h):
 *
 *   bar0  target socket: BAR0, 32-bit accesses only (hca_dev_mmio_*). A wrong
 *         length or streaming width answers TLM_BURST_ERROR_RESPONSE, a byte
 *         enable pointer TLM_BYTE_ENABLE_ERROR_RESPONSE, an offset with no
 *         register (or unaligned) TLM_ADDRESS_ERROR_RESPONSE, a doorbell the
 *         device refuses (doorbell queue full) TLM_GENERIC_ERROR_RESPONSE.
 *         No DMI. Accesses take no device time (no delay is annotated).
 *   dma   initiator socket: every memory access of the device (engine DMA,
 *         firmware DMA) outside hca_dev_map_window windows, as b_transport;
 *         a response other than OK is a bus error for the device.
 *   irq   the host interrupt line (hca_dev_host_irq).
 *
 * Timing (temporal decoupling with a tlm_quantumkeeper, quantum from
 * tlm_global_quantum). Exact: device cycle c happens at t0 + c * period, t0
 * the start of simulation; every DMA is issued with that time as its
 * annotated offset; irq changes at the time of the cycle that changed it (the
 * thread syncs first). Approximated: an MMIO from the platform is seen by the
 * device at whatever cycle it has reached, which may be up to one quantum
 * ahead of the initiator's time (a smaller quantum: closer, slower). DMA
 * timing is the device's own (hca_dev_config_t.host); the delay a DMA target
 * annotates is ignored, and a target that wait()s only holds the device back
 * in wall-clock order, never shifts its cycles. Quiet cycles (no DMA, no
 * interrupt change can happen: hca_dev_quiet_cycles) are stepped at once,
 * never past the end of the quantum.
 */
#ifndef HCA_SC_H
#define HCA_SC_H

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <tlm_utils/tlm_quantumkeeper.h>

#include "hca_dev.h"

class hca_sc : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<hca_sc> bar0;
    tlm_utils::simple_initiator_socket<hca_sc> dma;
    sc_core::sc_out<bool> irq;

    /** cfg as hca_dev_create's (engine, firmware, timing); period: one device
     *  cycle. Errors (firmware refused) are SC_REPORT_ERROR. */
    hca_sc(sc_core::sc_module_name name, const hca_dev_config_t &cfg,
           const sc_core::sc_time &period = sc_core::sc_time(4, sc_core::SC_NS));
    /** Default configuration on the given engine. */
    explicit hca_sc(sc_core::sc_module_name name, dev_engine_kind_t engine = DEV_ENGINE_RTL,
                    const sc_core::sc_time &period = sc_core::sc_time(4, sc_core::SC_NS));
    ~hca_sc() override;

    /** The device inside (event log, counters, windows, console). */
    hca_dev_t *dev() const { return dev_; }
    const sc_core::sc_time &period() const { return period_; }

private:
    void run();
    void b_transport(tlm::tlm_generic_payload &gp, sc_core::sc_time &delay);
    bool get_direct_mem_ptr(tlm::tlm_generic_payload &, tlm::tlm_dmi &) { return false; }
    int dma_access(tlm::tlm_command cmd, uint64_t addr, void *buf, size_t len);
    static int dma_read(void *ctx, uint64_t addr, void *buf, size_t len);
    static int dma_write(void *ctx, uint64_t addr, const void *buf, size_t len);

    hca_dev_t *dev_ = nullptr;
    sc_core::sc_time period_;
    sc_core::sc_time t_dev_; /* time of the device's current cycle */
    tlm_utils::tlm_quantumkeeper qk_;
};

#endif /* HCA_SC_H */
