# Where the variable counter of a server stands, for suites that compare an
# id with the state file's marks (state_faults.sh, identity_late.sh). Uses
# $DATA, the server's data directory.

state_value() { sed -n "s/^$1 //p" "$DATA/locality_uuid.state"; }
# The variable-mode position of an id (inverse of the prime mod 2^32).
position_sql() {
  echo "(((locality_uuid_counter($1) - $(state_value variable_start) + 4294967296) % 4294967296)::numeric
         * 3127333277 - 1 + 4294967296) % 4294967296"
}
# Variable positions are counted mod 2^32, marks are 64-bit counts of
# draws (moves past fresh random points have taken them past 2^32):
# ahead POS MARK: POS is at MARK or past it by less than 2^23 (a refill or
# two, a block per backend); below POS MARK: POS is before MARK, by less
# than 2^23; moved POS MARK: POS is 2^29 to 3 * 2^30 (and a refill) past
# MARK, as after a move (2^30 or more for a new value's move; a copy's
# move, while more than a quarter of the cycle is unused (the moves of
# earlier rounds count), keeps an eighth, 2^29, each way:
# src/core/lineage.hpp).
ring() { echo $(( ($1 - $2 % 4294967296 + 4294967296) % 4294967296 )); }
ahead() { [ "$(ring "$1" "$2")" -lt 8388608 ]; }
below() { local d; d=$(ring "$2" "$1"); [ "$d" -ge 1 ] && [ "$d" -lt 8388608 ]; }
moved() { local d; d=$(ring "$1" "$2"); [ "$d" -ge 536870912 ] && [ "$d" -lt $((3221225472 + 8388608)) ]; }
