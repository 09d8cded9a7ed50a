#!/usr/bin/env bash
# The shell of every Makefile recipe line (SHELL in the Makefile): runs the line with bash, as make
# would, then prints one timeline line on stderr when it took at least MAKE_TIMELINE_MIN_S seconds
# (default 1; 0 prints every line): the wall-clock time, the time since the outermost make started
# (MAKE_TIMELINE_T0, set once by the Makefile, nanoseconds since the epoch), the line's duration
# and its first 100 characters. The exit status is the line's. MAKE_TIMELINE=0 turns the lines off.
# stderr, never stdout: `$(shell ...)` captures stdout. Not VEIL_*: the server refuses unknown
# VEIL_ variables, and every process a recipe starts inherits these.
start=$(date +%s%N)
/bin/bash "$@"
status=$?
if [ "${MAKE_TIMELINE:-1}" != 0 ]; then
  end=$(date +%s%N)
  took_ms=$(( (end - start) / 1000000 ))
  min_ms=$(awk -v s="${MAKE_TIMELINE_MIN_S:-1}" 'BEGIN { printf "%d", s * 1000 }')
  if [ "$took_ms" -ge "$min_ms" ]; then
    since=$(( (end - ${MAKE_TIMELINE_T0:-$start}) / 1000000000 ))
    line=${*: -1}
    line=${line//$'\n'/ }
    [ ${#line} -gt 100 ] && line="${line:0:97}..."
    [ "$status" -ne 0 ] && line="$line (exit $status)"
    printf 'timeline: %s +%dm%02ds %6d.%01ds  %s\n' "$(date -u +%H:%M:%S)" $((since / 60)) $((since % 60)) $((took_ms / 1000)) $(((took_ms % 1000) / 100)) "$line" >&2
  fi
fi
exit "$status"
