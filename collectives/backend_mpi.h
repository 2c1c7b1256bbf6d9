/* What the host training executor needs from the MPI backend beyond the collective interface. */
#ifndef NVS_BACKEND_MPI_H
#define NVS_BACKEND_MPI_H

#include <mpi.h>

#include "collectives/backend.h"

MPI_Comm nvs_mpi_comm(nvs_comm *c);

#endif
