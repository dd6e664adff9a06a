import tensorflow.compat.v1 as tf
import numpy as np

tf.disable_v2_behavior()

# Synthetic "digits": 3 classes of 8-pixel images around three prototypes
rng = np.random.RandomState(1)
prototypes = rng.uniform(0, 1, (3, 8)).astype(np.float32)
labels = rng.randint(0, 3, 300)
images = (prototypes[labels] + rng.normal(0, 0.15, (300, 8))).astype(np.float32)
one_hot = np.eye(3, dtype=np.float32)[labels]

learning_rate = 0.5
training_epochs = 25
batch_size = 50
display_step = 5

x = tf.placeholder(tf.float32, [None, 8])
y = tf.placeholder(tf.float32, [None, 3])

W = tf.Variable(tf.zeros([8, 3]))
b = tf.Variable(tf.zeros([3]))

pred = tf.nn.softmax(tf.matmul(x, W) + b)
cost = tf.reduce_mean(-tf.reduce_sum(y * tf.log(pred), reduction_indices=1))
optimizer = tf.train.GradientDescentOptimizer(learning_rate).minimize(cost)

correct_prediction = tf.equal(tf.argmax(pred, 1), tf.argmax(y, 1))
accuracy = tf.reduce_mean(tf.cast(correct_prediction, tf.float32))
init = tf.global_variables_initializer()

with tf.Session() as sess:
    sess.run(init)
    for epoch in range(training_epochs):
        avg_cost = 0.
        total_batch = int(len(images) / batch_size)
        for i in range(total_batch):
            batch_xs = images[i * batch_size:(i + 1) * batch_size]
            batch_ys = one_hot[i * batch_size:(i + 1) * batch_size]
            _, c = sess.run([optimizer, cost], feed_dict={x: batch_xs, y: batch_ys})
            avg_cost += c / total_batch
        if (epoch + 1) % display_step == 0:
            print("Epoch:", '%04d' % (epoch + 1), "cost=", "{:.9f}".format(avg_cost))
    print("Optimization Finished!")
    print("Accuracy:", accuracy.eval({x: images, y: one_hot}))
    print("Mean |W|:", sess.run(tf.to_float(tf.reduce_mean(tf.abs(W), keep_dims=False))))
    print("Predicted classes:", sess.run(tf.argmax(pred, dimension=1), {x: images[:10]}))
