# Properties, tags and aliases; a type's fields; tag filters and counts (needs B, TOKEN, SLUG and TYPE_ID from the examples before).
auth="authorization: Bearer $TOKEN"
json='content-type: application/json'
GUNDREN_ID=$(curl -sS --fail-with-body -H "$auth" "$B/api/campaigns/$SLUG/things/gundren-rockseeker" | jq .id)
NEZZNAR_ID=$(curl -sS --fail-with-body -H "$auth" "$B/api/campaigns/$SLUG/things/nezznar-the-black-spider" | jq .id)

# The type declares fields: a new thing of it starts with these keys (value null), and a value of a
# declared key must match its kind (text, number, boolean, date, link, list).
curl -sS --fail-with-body -X PUT -H "$auth" -H "$json" \
  -d '{"updatedThingType":{"fields":[{"key":"species","kind":"text"},{"key":"level","kind":"number"}]}}' \
  "$B/api/campaigns/$SLUG/thing-types/$TYPE_ID" | jq -c '{fields, thingCount}'

# A thing with tags, an alias and properties: a link property is a relation (Gundren's backlinks
# list it as properties.employer); a GM-only one, and a link to a GM-only record, players never get.
curl -sS --fail-with-body -H "$auth" -H "$json" -d "{\"newThing\":{\"name\":\"Sister Garaele\",\"typeId\":$TYPE_ID,
  \"tags\":[\"Harpers\",\"ally\"],\"aliases\":[\"Garaele\",\"Lady Silverleaf\"],\"properties\":[
    {\"key\":\"species\",\"value\":\"elf\"},
    {\"key\":\"employer\",\"value\":{\"targetType\":\"thing\",\"targetId\":$GUNDREN_ID}},
    {\"key\":\"watches\",\"value\":{\"targetType\":\"thing\",\"targetId\":$NEZZNAR_ID}},
    {\"key\":\"secret\",\"value\":\"a Harper agent\",\"gmOnly\":true}]}}" \
  "$B/api/campaigns/$SLUG/things" | jq -c '[.properties[] | {key, value}]'
curl -sS --fail-with-body -H "$auth" -H 'loreforge-view: player' "$B/api/campaigns/$SLUG/things/sister-garaele" \
  | jq -c '[.properties[].key]'
curl -sS --fail-with-body -H "$auth" "$B/api/campaigns/$SLUG/things/gundren-rockseeker/backlinks" | jq -c '[.[] | {slug, fields}]'

# A value that does not match its declared kind is a 400 pointing at it.
curl -sS -H "$auth" -H "$json" -d "{\"newThing\":{\"name\":\"Glasstaff\",\"typeId\":$TYPE_ID,
  \"properties\":[{\"key\":\"level\",\"value\":\"high\"}]}}" "$B/api/campaigns/$SLUG/things" | jq -c '.errors[].path'

# Things with every tag given (ignoring case), by name; every tag with its counts; each type's count.
curl -sS --fail-with-body -H "$auth" "$B/api/campaigns/$SLUG/things?tag=harpers&tag=ALLY&sort=name" | jq -c '[.[].name]'
curl -sS --fail-with-body -H "$auth" "$B/api/campaigns/$SLUG/tags" | jq -c .
curl -sS --fail-with-body -H "$auth" "$B/api/campaigns/$SLUG/thing-types" | jq -c '[.[] | {name, thingCount}]'

# Search finds her by another name she goes by (an alias counts as a name).
curl -sS --fail-with-body -H "$auth" "$B/api/campaigns/$SLUG/search?q=silverleaf" | jq -c '[.results[] | {name, alias}]'
