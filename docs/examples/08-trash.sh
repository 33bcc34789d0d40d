# The trash (needs B, TOKEN, SLUG and TYPE_ID from the examples before).
auth="authorization: Bearer $TOKEN"
json='content-type: application/json'

# A thing deleted by mistake: it goes to the campaign's trash with its links to arcs.
THING=$(curl -sS --fail-with-body -H "$auth" -H "$json" \
  -d "{\"newThing\":{\"name\":\"Iarno Albrek\",\"typeId\":$TYPE_ID}}" "$B/api/campaigns/$SLUG/things")
THING_ID=$(echo "$THING" | jq .id)
THING_SLUG=$(echo "$THING" | jq -r .slug)
curl -sS --fail-with-body -X DELETE -H "$auth" "$B/api/campaigns/$SLUG/things/$THING_SLUG"
curl -sS -o /dev/null -w '%{http_code}\n' -H "$auth" "$B/api/campaigns/$SLUG/things/$THING_SLUG"

# What the trash holds, newest first: what, by whom, when, and what went with it.
curl -sS --fail-with-body -H "$auth" "$B/api/campaigns/$SLUG/trash" | jq -c '.[] | {kind, id, slug, name, with}'

# Restore: it comes back as it was, with its links; `slugChanged` says if its slug was taken meanwhile.
curl -sS --fail-with-body -X POST -H "$auth" "$B/api/campaigns/$SLUG/trash/thing/$THING_ID/restore" \
  | jq -c '{slug, slugChanged, restored, name: .record.name}'

# Or erase it now, for good (otherwise the trash keeps it TRASH_RETENTION_DAYS, 30 by default).
curl -sS --fail-with-body -X DELETE -H "$auth" "$B/api/campaigns/$SLUG/things/$THING_SLUG"
curl -sS --fail-with-body -X DELETE -H "$auth" "$B/api/campaigns/$SLUG/trash/thing/$THING_ID"

# A deleted campaign goes to its owner's trash: GET /api/trash/campaigns lists it,
# POST /api/trash/campaigns/{id}/restore brings it back, DELETE /api/trash/campaigns/{id} erases it.
curl -sS --fail-with-body -H "$auth" "$B/api/trash/campaigns" | jq -c 'map({id, slug, name})'
