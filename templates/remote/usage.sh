# shellcheck shell=sh disable=SC2154
# templates/remote/usage.sh: what `provision usage` runs on the head, in
# one SSH round trip, in the facts framing (lib/frame.h): every job
# allocation Slurm's accounting holds since V_SINCE (sacct -X: the
# allocation, not its steps), then the jobs waiting now and why.
#
# usage_script() (lib/usage.c) sets before it, shell-quoted:
#
#	V_SINCE		sacct's start time: now-30days, 2026-11-01T00:00:00

echo '@@facts u-jobs'
sacct -a -X -n -P -S "$V_SINCE" -E now -o JobID,Account,User,ElapsedRaw,AllocTRES,State
echo "@@rc $?"
echo '@@facts u-waiting'
squeue -h -t PENDING -o '%i|%a|%u|%r'
echo "@@rc $?"
