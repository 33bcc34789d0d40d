# An account and an API token. Run the examples in one shell, in order: each one sets the variables
# the next ones use (B, EMAIL, TOKEN, SLUG, TYPE_ID, …).
B=${B:-http://127.0.0.1:3000}
EMAIL=${EMAIL:-gm@example.com}

# Register: answers {user} and sets the session cookie (kept in the file "jar"). An existing
# account signs in instead: POST $B/api/auth/login with the same body.
curl -sS --fail-with-body -c jar -H 'content-type: application/json' \
  -d "{\"email\":\"$EMAIL\",\"password\":\"correct horse battery\"}" "$B/api/auth/register"

# An API token for scripts and apps, signed in by the cookie. Its secret is shown this once.
TOKEN=$(curl -sS --fail-with-body -b jar -H 'content-type: application/json' \
  -d '{"name":"my planner"}' "$B/api/auth/tokens" | jq -r .token)

# Send it as "Authorization: Bearer $TOKEN" from now on.
curl -sS --fail-with-body -H "authorization: Bearer $TOKEN" "$B/api/auth/me"
