#!/usr/bin/env zsh
# Runs zsh's own completion system on a command line and prints what it would offer.
#
#   zsh -f zsh-complete.zsh <completion script> <command line>
#
# An interactive zsh in a pseudo-terminal (zpty) loads compinit and the script, then
# gets the line and a TAB. compadd is wrapped so that every candidate zsh adds is also
# printed, one a line: `value` or `value -- display`, plus `group-unsorted` when
# zsh was asked to keep their order (compadd -V or -o nosort). Exit 0 when the completion ran, 2 when
# the shell did not answer in time.

zmodload zsh/zpty || exit 3
script=$1
cmdline=$2
integer budget=${ZSH_COMPLETE_TIMEOUT:-20}

zpty capture zsh -f -i || exit 3

# Everything the inner shell needs, sent as one line per command.
setup=(
  'PS1="" PROMPT="" RPROMPT="" PROMPT_EOL_MARK=""'
  'unsetopt zle_bracketed_paste 2>/dev/null; setopt no_beep'
  'autoload -Uz compinit && compinit -u -D'
  "source ${(q)script}"
  'zstyle ":completion:*" list-grouped false'
  'zstyle ":completion:*" insert-tab false'
  '__mark() { print -r -- "<<<MARK>>>" }'
  'compprefuncs=(__mark); comppostfuncs=(__mark exit)'
  # A compadd that prints what it would add. Calls that only compute (-O, -A, -D) go through.
  # Unsorted means a -V group, or (zsh 5.9) -o nosort. No comments inside: the inner shell
  # is interactive, where '#' starts no comment.
  'compadd() {
     if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return; fi
     local -a __hits __shown __dopt; local __i __unsorted=0
     (( ${@[(I)-V*]} || ${@[(I)*nosort*]} )) && __unsorted=1
     if (( ${@[(I)-d]} )); then __dopt=${@[$(( ${@[(i)-d]} + 1 ))]}; __shown=( "${(@P)__dopt}" ); fi
     builtin compadd -A __hits -D __shown "$@"
     (( __unsorted && $#__hits )) && print -r -- "group-unsorted"
     for __i in {1..$#__hits}; do
       if (( $#__shown >= __i )) && [[ -n ${__shown[__i]} ]]; then print -r -- "$IPREFIX${__hits[__i]} -- ${__shown[__i]}"
       else print -r -- "$IPREFIX${__hits[__i]}"; fi
     done
     builtin compadd "$@"
   }'
  'print -r -- "<<<READY>>>"'
)
for command in $setup; do zpty -w capture "$command"; done

# Wait for the setup to finish.
integer start=$SECONDS
local line=''
while (( SECONDS - start < budget )); do
  if zpty -rt capture line; then
    [[ $line == *'<<<READY>>>'* && $line != *print* ]] && break
  else
    sleep 0.05
  fi
done

zpty -w -n capture "$cmdline"$'\t'

# Print what lies between the two marks.
integer marks=0
start=$SECONDS
while (( SECONDS - start < budget )); do
  if zpty -rt capture line; then
    line=${line//[$'\r\n']/}
    if [[ $line == *'<<<MARK>>>'* ]]; then
      (( ++marks == 2 )) && { zpty -d capture; exit 0 }
      continue
    fi
    (( marks == 1 )) && print -r -- "$line"
  else
    sleep 0.05
  fi
done
zpty -d capture
exit 2
