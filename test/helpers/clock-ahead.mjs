// Loaded with node --import: this process's clock (Date.now) runs $TASKS_TEST_CLOCK_AHEAD_MS ahead
// of the machine's, as on a host whose clock is off (the files it stamps keep the real time).
const ahead = Number(process.env.TASKS_TEST_CLOCK_AHEAD_MS ?? 0);
const realNow = Date.now;
Date.now = () => realNow() + ahead;
