# Properties, tags and aliases (needs B, TOKEN, SLUG, TYPE_ID and GUNDREN_ID from the examples before).
auth="authorization: Bearer $TOKEN"
json='content-type: application/json'
C="$B/api/campaigns/$SLUG"

# The NPCs type declares fields: new NPCs start with these keys, and their values must match the kind.
curl -sS --fail-with-body -X PUT -H "$auth" -H "$json" \
  -d '{"updatedThingType":{"fields":[{"key":"species","kind":"text"},{"key":"level","kind":"number"},{"key":"serves","kind":"link"}]}}' \
  "$C/thing-types/$TYPE_ID" | jq -c '{name, fields, thingCount}'

# Sildar serves Gundren (a link property: a relation, in Gundren's backlinks), with a GM-only secret,
# tags and another name he is found by.
curl -sS --fail-with-body -X PUT -H "$auth" -H "$json" -d "{\"updatedThing\":{
    \"properties\":[{\"key\":\"species\",\"value\":\"human\"},{\"key\":\"level\",\"value\":5},
      {\"key\":\"serves\",\"value\":{\"targetType\":\"thing\",\"targetId\":$GUNDREN_ID}},
      {\"key\":\"true loyalty\",\"value\":\"the Lords' Alliance\",\"gmOnly\":true}],
    \"tags\":[\"ally\",\"Phandalin\"],\"aliases\":[\"The Grey Knight\"]}}" \
  "$C/things/sildar-hallwinter" | jq -c '{properties: [.properties[].key], tags, aliases}'

# A value of the wrong kind is 400 with a pointer to it, and nothing is stored.
curl -sS -X PUT -H "$auth" -H "$json" -d '{"updatedThing":{"properties":[{"key":"level","value":"five"}]}}' \
  "$C/things/sildar-hallwinter" | jq -c '.errors'

# Gundren's backlinks name the property; the campaign's tags with their counts; things by tag.
curl -sS --fail-with-body -H "$auth" "$C/things/gundren-rockseeker/backlinks" | jq -c '[.[] | {name, fields}]'
curl -sS --fail-with-body -H "$auth" "$C/tags" | jq -c '.'
curl -sS --fail-with-body -H "$auth" "$C/things?tag=ally&tag=phandalin&sort=name" | jq -c '[.[].name]'

# Search finds him by his alias.
curl -sS --fail-with-body -H "$auth" "$C/search?q=grey+knight" | jq -c '[.results[].name]'
