#!/bin/sh
# A tiny engine for the selfplay tests (docs/engine.md), in plain sh + sed.
# `first_move_engine.sh honest` plays the first legal move it is given;
# `first_move_engine.sh cheat` answers every `go` with an illegal move.
mode="$1"
# A legal deployment for South; other seats get the same with the seat letter replaced.
dep='{"seat":"S","pieces":{"Sa1":"3","Sb1":"2","Sc1":"4","Sd1":"2","Se1":"3","Sa2":"1","Sc2":"7","Se2":"1","Sa3":"6","Sb3":"5","Sd3":"7","Se3":"6","Sa4":"8","Sc4":"B","Se4":"9","Sa5":"5","Sb5":"3","Sc5":"B","Sd5":"4","Se5":"1","Sa6":"M","Sb6":"F","Sc6":"M","Sd6":"M","Se6":"2"}}'
while IFS= read -r line; do
  case "$line" in
    *'"type":"hello"'*)
      echo '{"type":"ready","protocol":1,"name":"first-move","options":{}}' ;;
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
