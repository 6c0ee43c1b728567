/*! zkpipe/zkpipe.h : the umbrella header; includes every public topic header. */
#ifndef ZKPIPE_ZKPIPE_H
#define ZKPIPE_ZKPIPE_H

#include "zkpipe/common.h"
#include "zkpipe/version.h"
#include "zkpipe/status.h"
#include "zkpipe/alloc.h"
#include "zkpipe/acct.h"
#include "zkpipe/histogram.h"
#include "zkpipe/sem.h"
#include "zkpipe/chan.h"
#include "zkpipe/pool.h"
#include "zkpipe/backend.h"
#include "zkpipe/cpu.h"
#include "zkpipe/curve.h"
#include "zkpipe/circuit.h"
#include "zkpipe/groth16.h"
#include "zkpipe/trace.h"
#include "zkpipe/key_cache.h"
#include "zkpipe/engine.h"
#include "zkpipe/io.h"
#include "zkpipe/http.h"
#include "zkpipe/stages.h"

ZKPIPE_EXTERN_C_BEGIN

/*! zkpipe_version_string() : the library's version, e.g. "0.1.0", as built (which may differ
 * from ZKPIPE_VERSION_STRING in the headers a program was compiled against).
 * @return a static string; never NULL. Thread-safe. */
ZKPIPE_API const char *zkpipe_version_string(void);

/*! zkpipe_version_number() : major * 10000 + minor * 100 + patch of the library as built. */
ZKPIPE_API unsigned zkpipe_version_number(void);

ZKPIPE_EXTERN_C_END

#endif
