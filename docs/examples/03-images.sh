# Uploading an image (premium only; needs B, EMAIL, TOKEN and SLUG from the examples before).
auth="authorization: Bearer $TOKEN"
json='content-type: application/json'

# Make the user premium with the admin command line, run with the server's settings (here its
# DATA_DIR; or DATABASE_URL on PostgreSQL). It says which database it opened.
npm run --silent cli -- user premium "$EMAIL" --until 2099-12-31

# 1. An upload URL for one image, valid for 30 minutes.
GRANT=$(curl -sS --fail-with-body -H "$auth" -H "$json" \
  -d '{"label":"Map of Phandalin"}' "$B/api/campaigns/$SLUG/assets/upload-url")
UPLOAD_URL=$(echo "$GRANT" | jq -r .uploadURL)
IMAGE_ID=$(echo "$GRANT" | jq -r .imageId)

# 2. The file itself: PUT the raw bytes (or POST a form: curl -F "file=@map.png" "$UPLOAD_URL").
#    Here a one-pixel PNG stands in for your map.
echo 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg==' | base64 -d > map.png
curl -sS --fail-with-body -X PUT --upload-file map.png "$UPLOAD_URL"

# 3. Confirm: the service checks the upload and saves the asset. Its imageHostId is the imageId.
ASSET=$(curl -sS --fail-with-body -H "$auth" -H "$json" \
  -d "{\"imageId\":\"$IMAGE_ID\",\"label\":\"Map of Phandalin\"}" "$B/api/campaigns/$SLUG/assets/confirm-upload")
echo "$ASSET"
ASSET_ID=$(echo "$ASSET" | jq .asset.id)
IMAGE_URL=$(echo "$ASSET" | jq -r .url)

# Use it in rich text, fetch it, list the campaign's images, delete it (to the trash: its stored file goes when the entry is erased).
curl -sS --fail-with-body -X PUT -H "$auth" -H "$json" \
  -d "{\"updatedThing\":{\"description\":[{\"type\":\"image\",\"url\":\"$IMAGE_URL\",\"assetId\":$ASSET_ID,\"children\":[{\"text\":\"\"}]}]}}" \
  "$B/api/campaigns/$SLUG/things/gundren-rockseeker"
curl -sS --fail-with-body -o /dev/null -w '%{http_code} %{content_type}\n' "$IMAGE_URL"
curl -sS --fail-with-body -H "$auth" "$B/api/campaigns/$SLUG/assets"
curl -sS --fail-with-body -X DELETE -H "$auth" "$B/api/campaigns/$SLUG/assets/$ASSET_ID"
rm map.png
