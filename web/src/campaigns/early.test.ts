// @vitest-environment jsdom
// A page's first requests, started early on a first load (campaigns/api.ts startEarly), are taken
// by its queries only in the view they were asked in: after "View as player" is switched on, a
// query never gets the game master's answer (secrets and all) read before the switch, nor the
// other way round.
import { afterEach, describe, expect, it } from 'vitest';
import { setPlayerView } from '../api/view';
import { startEarly, takeEarly } from './api';

afterEach(() => setPlayerView('lost-mine', false));

describe('answers started early', () => {
  it('are taken once, in the view they were asked in', async () => {
    startEarly(['rendered', 'things', 'lost-mine', 'sildar'], () => Promise.resolve('the GM’s text'));
    expect(await takeEarly(['rendered', 'things', 'lost-mine', 'sildar'], () => Promise.resolve('read again')).answer).toBe('the GM’s text');
    expect(await takeEarly(['rendered', 'things', 'lost-mine', 'sildar'], () => Promise.resolve('read again')).answer).toBe('read again');
  });

  it('are not taken after the view changed to the player’s', async () => {
    startEarly(['rendered', 'things', 'lost-mine', 'sildar'], () => Promise.resolve('the GM’s text'));
    setPlayerView('lost-mine', true);
    expect(await takeEarly(['rendered', 'things', 'lost-mine', 'sildar'], () => Promise.resolve('the player’s text')).answer).toBe('the player’s text');
  });

  it('are not taken after the view changed back to the game master’s', async () => {
    setPlayerView('lost-mine', true);
    startEarly(['record', 'things', 'lost-mine', 'sildar'], () => Promise.resolve('the player’s record'));
    setPlayerView('lost-mine', false);
    expect(await takeEarly(['record', 'things', 'lost-mine', 'sildar'], () => Promise.resolve('the GM’s record')).answer).toBe('the GM’s record');
  });
});
