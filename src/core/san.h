/* Hooks for the sanitized build (make check SAN=address,undefined); nothing in a normal build.
 *
 * NVS_LSAN_IGNORE_BEGIN/END: LeakSanitizer does not report what the calling thread allocates in between. Used
 * around MPI_Init and MPI_Finalize only: Open MPI keeps allocations until exit in plug-ins it unloads, whose
 * stacks LeakSanitizer can then no longer name (so no suppression file can match them), and unwinding every
 * malloc slowly to name them makes the sanitized suite several times slower. */
#ifndef NVS_SAN_H
#define NVS_SAN_H

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#define NVS_LSAN_IGNORE_BEGIN() __lsan_disable()
#define NVS_LSAN_IGNORE_END() __lsan_enable()
#else
#define NVS_LSAN_IGNORE_BEGIN() ((void)0)
#define NVS_LSAN_IGNORE_END() ((void)0)
#endif

#endif
