# Mentions, backlinks and rendered text (needs B, TOKEN, SLUG and TYPE_ID from the examples before).
auth="authorization: Bearer $TOKEN"
json='content-type: application/json'

# Gundren's id, for a mention element (mentions hold ids, so they survive renames and slug changes).
GUNDREN_ID=$(curl -sS --fail-with-body -H "$auth" "$B/api/campaigns/$SLUG/things/gundren-rockseeker" | jq .id)

# A thing whose description mentions Gundren twice: by a mention element, and by the seed system's
# [[thing#slug]] text link. It also keeps one block for the game master only (isSecret).
curl -sS --fail-with-body -H "$auth" -H "$json" -d "{\"newThing\":{\"name\":\"Sildar Hallwinter\",\"typeId\":$TYPE_ID,
  \"description\":[
    {\"type\":\"paragraph\",\"children\":[{\"text\":\"Travels with \"},
      {\"type\":\"mention\",\"targetType\":\"thing\",\"targetId\":$GUNDREN_ID,\"children\":[{\"text\":\"\"}]},
      {\"text\":\", *not* a [[thing#gundren-rockseeker]] fan.\"}]},
    {\"type\":\"paragraph\",\"isSecret\":true,\"children\":[{\"text\":\"Secretly a Lords' Alliance agent.\"}]}]}}" \
  "$B/api/campaigns/$SLUG/things"

# Where is Gundren mentioned? Every thing, arc or campaign description that does, newest first.
curl -sS --fail-with-body -H "$auth" "$B/api/campaigns/$SLUG/things/gundren-rockseeker/backlinks"

# Sildar's description rendered: HTML (the default) and Markdown. Mentions become links to the
# web app's page with Gundren's current name; the *stars* the user typed stay literal.
curl -sS --fail-with-body -H "$auth" "$B/api/campaigns/$SLUG/things/sildar-hallwinter/rendered"
curl -sS --fail-with-body -H "$auth" "$B/api/campaigns/$SLUG/things/sildar-hallwinter/rendered?format=markdown" \
  | jq -r .fields.description
