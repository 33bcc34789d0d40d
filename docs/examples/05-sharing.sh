# Sharing the campaign with a player (needs B, TOKEN and SLUG from the examples before).
auth="authorization: Bearer $TOKEN"
json='content-type: application/json'

# The GM invites a player: a link for one person, valid 7 days (both are defaults). The token is
# in this answer only; "url" is the web app's page that accepts it.
INVITE=$(curl -sS --fail-with-body -H "$auth" -H "$json" -d '{"role":"player","maxUses":1}' \
  "$B/api/campaigns/$SLUG/invitations")
echo "$INVITE" | jq '{role, maxUses, url}'
INVITE_TOKEN=$(echo "$INVITE" | jq -r .token)

# The player has an account and a token of their own...
curl -sS --fail-with-body -c player-jar -H "$json" \
  -d "{\"email\":\"player-$EMAIL\",\"password\":\"correct horse battery\",\"name\":\"Pip\"}" "$B/api/auth/register" >/dev/null
PLAYER_TOKEN=$(curl -sS --fail-with-body -b player-jar -H "$json" -d '{"name":"phone"}' "$B/api/auth/tokens" | jq -r .token)
player="authorization: Bearer $PLAYER_TOKEN"

# ...and accepts: 200 {campaign, role}. A second try with a used-up link is 410 invitation_unavailable.
curl -sS --fail-with-body -H "$player" -H "$json" -d "{\"token\":\"$INVITE_TOKEN\"}" \
  "$B/api/invitations/accept" | jq '{role, campaign: .campaign.slug}'

# The GM keeps a secret: a GM-only NPC, and a secret block in a visible thing.
curl -sS --fail-with-body -H "$auth" -H "$json" -d "{\"newThing\":{\"name\":\"Nezznar the Black Spider\",
  \"typeId\":$TYPE_ID,\"visibility\":\"gm\"}}" "$B/api/campaigns/$SLUG/things" | jq '{slug, visibility}'

# What the player sees: Sildar without his secret block, and no Nezznar anywhere (404 by his slug,
# absent from lists and search).
curl -sS --fail-with-body -H "$player" "$B/api/campaigns/$SLUG/things/sildar-hallwinter" | jq -c .description
curl -sS -o /dev/null -w '%{http_code}\n' -H "$player" "$B/api/campaigns/$SLUG/things/nezznar-the-black-spider"
curl -sS --fail-with-body -H "$player" "$B/api/campaigns/$SLUG/search?q=spider" | jq -c .results

# Players read; they do not write: 403 role_forbidden.
curl -sS -H "$player" -H "$json" -d '{"updatedCampaign":{"name":"Mine now"}}' -X PUT "$B/api/campaigns/$SLUG" | jq .code

# The GM sees what players see with the Loreforge-View header (what "View as player" sends).
curl -sS --fail-with-body -H "$auth" -H 'loreforge-view: player' "$B/api/campaigns/$SLUG/things/sildar-hallwinter" \
  | jq -c .description

# Members, and removing one: the player's next request is 404, as for any campaign not theirs.
curl -sS --fail-with-body -H "$auth" "$B/api/campaigns/$SLUG/members" | jq -c '[.[] | {name, role}]'
PLAYER_ID=$(curl -sS --fail-with-body -H "$player" "$B/api/auth/me" | jq -r .id)
curl -sS --fail-with-body -X DELETE -H "$auth" "$B/api/campaigns/$SLUG/members/$PLAYER_ID"
curl -sS -o /dev/null -w '%{http_code}\n' -H "$player" "$B/api/campaigns/$SLUG"
