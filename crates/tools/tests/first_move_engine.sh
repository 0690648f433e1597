#!/bin/sh
# A tiny engine for the selfplay tests (docs/engine.md), in plain sh + sed.
# `first_move_engine.sh honest` plays the first legal move it is given;
# `first_move_engine.sh cheat` answers every `go` with an illegal move.
# With SIGUO_RECORD_DIR set, every line received is also appended to a file of its own there
# (one file per engine process), for tests of what a driver sends.
mode="$1"
rec=
if [ -n "$SIGUO_RECORD_DIR" ]; then rec=$(mktemp "$SIGUO_RECORD_DIR/engine.XXXXXX"); fi
# A legal deployment for South; other seats get the same with the seat letter replaced.
dep='{"seat":"S","pieces":{"Sa1":"3","Sb1":"2","Sc1":"4","Sd1":"2","Se1":"3","Sa2":"1","Sc2":"7","Se2":"1","Sa3":"6","Sb3":"5","Sd3":"7","Se3":"6","Sa4":"8","Sc4":"B","Se4":"9","Sa5":"5","Sb5":"3","Sc5":"B","Sd5":"4","Se5":"1","Sa6":"M","Sb6":"F","Sc6":"M","Sd6":"M","Se6":"2"}}'
# Hidden Front (hidden-front.md §3): one deployment per seat.
hf_S='{"seat":"S","pieces":{"A7":"3","B7":"2","C7":"4","D7":"2","E7":"3","A8":"1","C8":"7","E8":"1","A9":"6","B9":"5","D9":"7","E9":"6","A10":"8","C10":"B","E10":"9","A11":"5","B11":"3","C11":"B","D11":"4","E11":"1","A12":"M","B12":"F","C12":"M","D12":"2","E12":"M"}}'
hf_N='{"seat":"N","pieces":{"E6":"3","D6":"2","C6":"4","B6":"2","A6":"3","E5":"1","C5":"7","A5":"1","E4":"6","D4":"5","B4":"7","A4":"6","E3":"8","C3":"B","A3":"9","E2":"5","D2":"3","C2":"B","B2":"4","A2":"1","E1":"M","D1":"F","C1":"M","B1":"2","A1":"M"}}'
while IFS= read -r line; do
  if [ -n "$rec" ]; then printf '%s\n' "$line" >> "$rec"; fi
  case "$line" in
    *'"type":"hello"'*)
      echo '{"type":"ready","protocol":2,"name":"first-move","options":{}}' ;;
    *'"type":"new_game"'*'"hidden_front"'*'"deploy":true'*)
      seat=$(printf '%s' "$line" | sed -n 's/.*"seats":\["\([NS]\)"\].*/\1/p')
      if [ "$seat" = S ]; then d="$hf_S"; else d="$hf_N"; fi
      echo "{\"type\":\"deployment\",\"deployments\":[$d]}" ;;
    *'"type":"new_game"'*'"deploy":true'*)
      seat=$(printf '%s' "$line" | sed -n 's/.*"seats":\["\([NESW]\)"\].*/\1/p')
      echo "{\"type\":\"deployment\",\"deployments\":[$(printf '%s' "$dep" | sed "s/S/$seat/g")]}" ;;
    *'"type":"new_game"'*)
      echo '{"type":"deployment","deployments":[]}' ;;
    *'"type":"go"'*)
      if [ "$mode" = cheat ]; then
        echo '{"type":"move","from":"Cb2","to":"Cb2"}'
      else
        printf '%s\n' "$line" | sed -n 's/.*"legal_moves":{"\([A-Za-z0-9]*\)":\["\([A-Za-z0-9]*\)".*/{"type":"move","from":"\1","to":"\2"}/p'
      fi ;;
    *'"type":"quit"'*)
      exit 0 ;;
  esac
done
