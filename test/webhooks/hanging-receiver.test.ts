import { after, before, describe, it } from 'node:test';
import { testDialects } from '../helpers/databases.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { checkHangingReceiverStallsNothing, HANGING_RECEIVER_ENV } from './hanging-receiver-scenario.ts';

for (const dialect of testDialects()) {
  void describe(`a webhook receiver that never answers, embedded queue (${dialect})`, () => {
    let testApp: TestApp;
    before(async () => {
      testApp = await createTestApp(dialect, HANGING_RECEIVER_ENV);
    });
    after(() => testApp.close());

    void it('holds up no conversion and no other receiver', async (t) => {
      t.diagnostic(JSON.stringify(await checkHangingReceiverStallsNothing(testApp)));
    });
  });
}
