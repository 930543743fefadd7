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
// Hold [addr, addr + size) from now until vm_reserve maps Loom's memory
// there: a restart's checkpoint names its address, and reserving it as the
// library loads, before MPI_Init maps its segments and starts threads, leaves
// less of the process's random layout to land on it.
void vm_hold_early(uint64_t addr, uint64_t size);
// Faults on Loom pages go to on_fault (page, 1 write / 0 read / -1 unknown)
// from any thread, under the rank lock (threads.hpp).  It says:
//   NotLoom  no allocation covers the page: the handler installed before
//            Loom gets the fault (the program crashes as it would without);
//   Handled  the page now allows the access: the access runs again;
//   Allowed  the page allowed the access already (another thread of the
//            rank handled a fault on it meanwhile): the access runs again.
//            The same page Allowed many times in a row on one thread is a
//            protection the page table does not know: the real SIGSEGV.
enum class Fault { NotLoom, Handled, Allowed };
// on_fault: the protocol's fault entry; describe: what lies near a byte
// offset no allocation covers, for the message before the real SIGSEGV.
Status vm_install_handler(Fault (*on_fault)(uint64_t page, int is_write),
                          size_t (*describe)(uint64_t off, char* buf, size_t len));
void vm_remove_handler();
void vm_protect(uint64_t first_page, uint64_t npages, PageState s);

}  // namespace loom
