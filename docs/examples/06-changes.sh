# Keeping a copy in sync by the changes feed (needs B, TOKEN, SLUG and TYPE_ID from the examples before).
auth="authorization: Bearer $TOKEN"
json='content-type: application/json'

# From the beginning: every record of the campaign, a page at a time, while "more" is true.
SINCE=""
while :; do
  PAGE=$(curl -sS --fail-with-body -H "$auth" "$B/api/campaigns/$SLUG/changes?limit=100${SINCE:+&since=$SINCE}")
  echo "$PAGE" | jq -c '[.changes[] | {kind, op, id}] | length'
  SINCE=$(echo "$PAGE" | jq -r .cursor)
  [ "$(echo "$PAGE" | jq -r .more)" = "true" ] || break
done

# Later: one thing made, then deleted. Polling with the last cursor gives just that, as a tombstone
# (a record appears once, in its latest state), and its type, whose thingCount moved.
SLUG_OF_DOOMED=$(curl -sS --fail-with-body -H "$auth" -H "$json" \
  -d "{\"newThing\":{\"name\":\"Doomed Goblin\",\"typeId\":$TYPE_ID}}" "$B/api/campaigns/$SLUG/things" | jq -r .slug)
curl -sS --fail-with-body -X DELETE -H "$auth" "$B/api/campaigns/$SLUG/things/$SLUG_OF_DOOMED"
curl -sS --fail-with-body -H "$auth" "$B/api/campaigns/$SLUG/changes?since=$SINCE" | jq -c '.changes[] | {kind, op}'
