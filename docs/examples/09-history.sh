# History: a thing's revisions, naming one, restoring it (needs B, TOKEN and SLUG from the examples before).
auth="authorization: Bearer $TOKEN"
json='content-type: application/json'
THING="$B/api/campaigns/$SLUG/things/sildar-hallwinter"

# Every change kept a revision; saves by one author within 5 minutes are one revision. Newest first.
curl -sS --fail-with-body -H "$auth" "$THING/revisions" | jq -c '.[] | {id, author: .author.name, fields}'
REV=$(curl -sS --fail-with-body -H "$auth" "$THING/revisions" | jq '.[0].id')

# Name it before a risky change: a named revision is kept for ever and never merged into.
curl -sS --fail-with-body -X PUT -H "$auth" -H "$json" -d '{"name":"Before the session"}' "$THING/revisions/$REV" \
  | jq -c '{id, name}'

# A change made by mistake is a new revision...
curl -sS --fail-with-body -X PUT -H "$auth" -H "$json" \
  -d '{"updatedThing":{"description":[{"type":"paragraph","children":[{"text":"Overwritten by mistake."}]}]}}' \
  "$THING" >/dev/null
curl -sS --fail-with-body -H "$auth" "$THING/revisions" | jq -c '[.[] | {name, fields}]'

# ...and the named one holds the text as it was.
curl -sS --fail-with-body -H "$auth" "$THING/revisions/$REV" | jq -c '.record.description[0].children[0]'

# Restore it: a new change with the revision's fields, answered as the thing's own GET (with its ETag).
# If-Match is the thing's current ETag: had anyone changed it meanwhile, 412 and nothing restored.
ETAG=$(curl -sS --fail-with-body -D - -o /dev/null -H "$auth" "$THING" | tr -d '\r' | sed -n 's/^etag: //Ip')
curl -sS --fail-with-body -X POST -H "$auth" -H "if-match: $ETAG" "$THING/revisions/$REV/restore" \
  | jq -c '.description[0].children[0]'
