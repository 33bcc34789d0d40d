# Export a campaign and import it back as a new one (needs B, TOKEN and SLUG from the examples before).
auth="authorization: Bearer $TOKEN"

# The archive: campaign.json and the uploaded images' bytes, streamed to a file.
curl -sS --fail-with-body -H "$auth" -o campaign.zip "$B/api/campaigns/$SLUG/export?format=archive"

# Back in, as a multipart form: a new campaign of yours, with new ids, the same slugs (the campaign's
# own gets a suffix while the original exists) and a report of what came in.
curl -sS --fail-with-body -H "$auth" -F "file=@campaign.zip" "$B/api/campaigns/import" \
  | jq -c '{slug, import: (.import | {format, things, arcs, links, assets})}'

# A Markdown vault (ours, or one made elsewhere) imports the same way; a JSON document can also be the
# body itself. A file that cannot be imported is a 400 naming the entry and the problem, and nothing is created.
curl -sS -H "$auth" -H 'content-type: application/json' -d '{"format":"loreforge-campaign","version":2}' \
  "$B/api/campaigns/import" | jq -c '{code, detail}'
