/* A fixed amount of CPU work, to stand for a framework's host-side cost per operation (PyTorch's Python and
 * dispatcher work before each kernel launch) in the synthetic training step.
 *
 * Why work and not a timed wait: the cost must behave as the framework's does when two ranks share a machine.
 * Interpreter work competes for the core it runs on (SMT siblings, caches, frequency); a loop that only reads
 * the clock would not. So the unit is an amount of work, calibrated once per process while it runs alone
 * (nvs_cpu_work_calibrate, between barriers) into "work units per microsecond"; at run time a cost of X us is
 * X * that rate units, which takes longer when the core is shared. The work is a dependent walk over a 64 KiB
 * table (L1/L2-resident, branchy, pointer-chasing: the shape of interpreter work) mixed with integer hashing. */
#ifndef NVS_CPU_WORK_H
#define NVS_CPU_WORK_H

/* Measures this thread's work rate for about `ms` milliseconds; returns units per microsecond (> 0). */
double nvs_cpu_work_calibrate(double ms);
/* Does `units` units of work (returns a value that depends on it, so the compiler cannot drop it). */
unsigned nvs_cpu_work(double units);

#endif
