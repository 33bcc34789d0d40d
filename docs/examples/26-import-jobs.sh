# A dry run, then the import in the background, followed to its end (needs B, TOKEN and SLUG from the examples before).
auth="authorization: Bearer $TOKEN"
curl -sS --fail-with-body -H "$auth" -o campaign.zip "$B/api/campaigns/$SLUG/export?format=archive"

# What the import would create, and every warning; nothing is created.
curl -sS --fail-with-body -H "$auth" -F "file=@campaign.zip" "$B/api/campaigns/import?dryRun=true" \
  | jq -c '{format, things, arcs, warnings: (.warnings | length)}'

# The import itself, in the background and GM-only: 202 as soon as the file is received, with the job.
# Sent again with the same Idempotency-Key (after a dropped connection), it answers this same job.
KEY="import-$(date +%s)-$$"
JOB=$(curl -sS --fail-with-body -H "$auth" -H 'Prefer: respond-async' -H "Idempotency-Key: $KEY" \
  -F "file=@campaign.zip" "$B/api/campaigns/import?visibility=gm" | jq -r .id)

# Follow it until it has ended: its progress meanwhile, then the campaign and the report (or the error).
while :; do
  STATE=$(curl -sS --fail-with-body -H "$auth" "$B/api/imports/$JOB")
  case "$(echo "$STATE" | jq -r .status)" in queued | running) sleep 1 ;; *) break ;; esac
done
echo "$STATE" | jq -c '{status, progress, campaign: .campaign.slug, things: .report.things}'
