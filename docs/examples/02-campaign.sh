# A campaign with its things and arcs (needs B and TOKEN from 01-account.sh).
auth="authorization: Bearer $TOKEN"
json='content-type: application/json'

# A new campaign comes with the thing types NPCs, Locations and Items. Its slug is made from the
# name (with a short suffix if another campaign has it already): keep the one you get.
SLUG=$(curl -sS --fail-with-body -H "$auth" -H "$json" \
  -d '{"newCampaign":{"name":"Lost Mine of Phandelver"}}' "$B/api/campaigns" | jq -r .slug)

# The id of its NPCs type (ids are per server: never assume 1).
TYPE_ID=$(curl -sS --fail-with-body -H "$auth" "$B/api/campaigns/$SLUG/thing-types" \
  | jq '.[] | select(.name == "NPCs") | .id')

# A thing with a rich-text description, and an arc.
curl -sS --fail-with-body -H "$auth" -H "$json" \
  -d "{\"newThing\":{\"name\":\"Gundren Rockseeker\",\"typeId\":$TYPE_ID,
       \"description\":[{\"type\":\"paragraph\",\"children\":[{\"text\":\"A dwarf with a map.\"}]}]}}" \
  "$B/api/campaigns/$SLUG/things"
curl -sS --fail-with-body -H "$auth" -H "$json" \
  -d '{"newArc":{"name":"Goblin Arrows"}}' "$B/api/campaigns/$SLUG/arcs"

# Link the thing to the arc (slugs come from the names), then read the arc with its things.
curl -sS --fail-with-body -H "$auth" -H "$json" \
  -d '{"arcSlug":"goblin-arrows"}' "$B/api/campaigns/$SLUG/things/gundren-rockseeker/arcs"
curl -sS --fail-with-body -H "$auth" "$B/api/campaigns/$SLUG/arcs/goblin-arrows"

# Change a thing only if nobody else has since you read it: send its ETag back as If-Match
# (a stale one answers 412 and changes nothing).
ETAG=$(curl -sS --fail-with-body -D - -o /dev/null -H "$auth" "$B/api/campaigns/$SLUG/things/gundren-rockseeker" \
  | tr -d '\r' | sed -n 's/^etag: //Ip')
curl -sS --fail-with-body -X PUT -H "$auth" -H "$json" -H "if-match: $ETAG" \
  -d '{"updatedThing":{"name":"Gundren Rockseeker, the missing"}}' "$B/api/campaigns/$SLUG/things/gundren-rockseeker"

# Search the campaign (typos and word forms are fine).
curl -sS --fail-with-body -G -H "$auth" --data-urlencode 'q=gundrin' "$B/api/campaigns/$SLUG/search"
