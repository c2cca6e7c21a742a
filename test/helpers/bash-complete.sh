#!/usr/bin/env bash
# Calls the bash completion function as bash would on a command line, and prints what
# it offers.
#
#   bash --norc --noprofile bash-complete.sh <completion script> <command line> [COMP_TYPE]
#
# Sets COMP_LINE, COMP_POINT (the end of the line), COMP_TYPE and COMP_WORDS/COMP_CWORD
# split as readline splits with the default COMP_WORDBREAKS (spaces apart, '=' and ':'
# words of their own, a quoted string one word). Prints COMPREPLY one a line, then
# `compopt: <options the function set>`.

source "$1" || exit 3
LINE=$2
compopt() { __opts+=("$*"); }

COMP_LINE=$LINE
COMP_POINT=${#LINE}
COMP_TYPE=${3:-9}
COMP_WORDS=()
rest=$LINE
while [[ -n $rest ]]; do
    rest=${rest#"${rest%%[![:space:]]*}"}
    [[ -z $rest ]] && break
    if [[ $rest == [=:]* ]]; then
        COMP_WORDS+=("${rest:0:1}")
        rest=${rest:1}
        continue
    fi
    quote=${rest:0:1}
    if [[ $quote == [\"\'] && ${rest:1} == *"$quote"* ]]; then
        word=${rest:1}
        word=$quote${word%%"$quote"*}$quote
    else
        word=${rest%%[[:space:]=:]*}
    fi
    COMP_WORDS+=("$word")
    rest=${rest:${#word}}
done
[[ -z $LINE || $LINE == *[[:space:]=:] ]] && COMP_WORDS+=("")
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))

__opts=()
__tasks_complete
printf '%s\n' "${COMPREPLY[@]}"
printf 'compopt: %s\n' "${__opts[*]}"
