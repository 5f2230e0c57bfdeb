local hs = {}
local generation = obj.metadata.generation or 0
local observed = 0
local conditions = {}
if obj.status ~= nil then
  observed = obj.status.observedGeneration or 0
  if obj.status.conditions ~= nil then
    for _, c in ipairs(obj.status.conditions) do
      conditions[c.type] = c
    end
  end
end
-- A rollout in progress (reason RollingOut or RolloutPaused) or a
-- generation being applied: the condition's message names the step.
local reconciling = conditions["Reconciling"]
if reconciling ~= nil and reconciling.status == "True" then
  hs.status = "Progressing"
  hs.message = reconciling.message or reconciling.reason or "Reconciling"
  return hs
end
if observed < generation then
  hs.status = "Progressing"
  hs.message = "Waiting for generation " .. tostring(generation) .. " to be reconciled"
  return hs
end
-- Refused, rolled back or aborted: the previous generation may still
-- serve (status.activeGeneration); the new spec needs a change. A Stalled
-- condition left from an older generation does not count.
local stalled = conditions["Stalled"]
if stalled ~= nil and stalled.status == "True" and (stalled.observedGeneration == nil or stalled.observedGeneration >= generation) then
  hs.status = "Degraded"
  hs.message = stalled.message or stalled.reason or "Stalled"
  return hs
end
local ready = conditions["Ready"]
if ready ~= nil and ready.status == "True" then
  hs.status = "Healthy"
  hs.message = ready.message or "Ready"
  return hs
end
hs.status = "Progressing"
if ready ~= nil and ready.message ~= nil then
  hs.message = ready.message
else
  hs.message = "Waiting for the profile to become ready"
end
return hs
