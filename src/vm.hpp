// The virtual-memory layer (vm.cpp): the global range at one address on
// every rank, page protections, and the SIGSEGV handler that hands faults
// on Loom pages to the protocol.
#pragma once
#include <mpi.h>

#include <cstdint>

#include "protocol/page_table.hpp"
#include "status.hpp"

namespace loom {

Status vm_reserve(MPI_Comm comm);  // agree on and map the global range
void vm_release();
// Faults on Loom pages go to on_fault (page, 1 write / 0 read / -1 unknown),
// which returns false when the fault is not Loom's (then the handler
// installed before Loom gets it).
// The one application thread a rank supports: the one that called
// loom_init.  A fault on Loom memory from another thread aborts the job
// with a message (the protocol's state is not thread-safe).
void vm_set_app_thread();
bool vm_on_app_thread();
// on_fault: the protocol's fault entry (false: no allocation covers the
// page); describe: what lies near a byte offset no allocation covers, for
// the message before the real SIGSEGV.
Status vm_install_handler(bool (*on_fault)(uint64_t page, int is_write),
                          size_t (*describe)(uint64_t off, char* buf, size_t len));
void vm_remove_handler();
void vm_protect(uint64_t first_page, uint64_t npages, PageState s);

}  // namespace loom
