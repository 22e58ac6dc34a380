#include "strong_random.hpp"

namespace locality_pg {

uint32 strong_random_u32() {
    uint32 v;
    if (!pg_strong_random(&v, sizeof v))
        ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("could not generate a random counter seed")));
    return v;
}

}  // namespace locality_pg
